// The public entry of lib/domains/approvals: what another domain may use of it (a domain never reaches into another's files).
export { gateAction } from "./action-gate";
export { getApprovalOp } from "./operations";
export { seedBuiltinPolicies, WEBHOOK_CHANGE_CLASS } from "./builtin-policies";
