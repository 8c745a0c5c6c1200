import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { listApprovalPoliciesOp } from "@/lib/approvals/operations";
import { policiesForKey, serializePolicy } from "@/lib/approvals/policies";

// GET /api/v1/approval-policies — the rules that say which actions need a person (read only)
export const GET = withApiKey(listApprovalPoliciesOp, async ({ actor }) => list((await policiesForKey(actor)).map(serializePolicy), false));
