// The public entry of lib/domains/passkeys: what another domain may use of it (a domain never reaches into another's files).
export { addPasskey, assertRecentlyAuthenticated, auditForUser, hasPasskey, isRecentlyAuthenticated, recordAssertion } from "./passkeys";
