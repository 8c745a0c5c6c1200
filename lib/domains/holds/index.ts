// The public entry of lib/domains/holds: what another domain may use of it (a domain never reaches into another's files).
export { cancelHoldExpiry, scheduleHoldExpiry } from "./expire-holds";
export { effectiveStatus, isLive, overlaps } from "./live";
export { getHoldOp } from "./operations";
export { aboveCeiling } from "./priority-ceiling";
export type { PlaceHoldInput } from "./schemas";
export { serializeHold } from "./serialize";
