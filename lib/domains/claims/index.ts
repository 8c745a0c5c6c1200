// The public entry of lib/domains/claims: what another domain may use of it (a domain never reaches into another's files).
export { claimable } from "./claimable";
