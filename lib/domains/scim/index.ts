// The public entry of lib/domains/scim: what another domain may use of it (a domain never reaches into another's files).
// SCIM 2.0 provisioning (docs/scim.md): app/scim/v2/** and the settings page import the files they serve directly.
export { createScimToken, revokeScimToken, listScimTokens, serializeScimToken } from "./tokens";
export type { ScimActor } from "./tokens";
export { ROLE_GROUPS } from "./roles";
