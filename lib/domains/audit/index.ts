// The public entry of lib/domains/audit: what another domain may use of it (a domain never reaches into another's files).
export { listAuditOp } from "./operations";
