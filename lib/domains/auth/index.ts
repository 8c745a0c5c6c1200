// The public entry of lib/domains/auth: what another domain may use of it (a domain never reaches into another's files).
export { appCookieOptions } from "./cookie-options";
export type { SignedInMember } from "./current-member";
export { currentSessionToken } from "./session-token";
