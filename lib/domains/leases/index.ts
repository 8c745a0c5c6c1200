// The public entry of lib/domains/leases: what another domain may use of it (a domain never reaches into another's files).
export { getLeaseOp } from "./operations";
export { serializeLease } from "./serialize";
