import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listApprovalPoliciesOp } from "@/lib/domains/approvals/operations";
import { policiesForKey, serializePolicy } from "@/lib/domains/approvals/policies";

// GET /api/v1/approval-policies — the rules that say which actions need a person (read only)
export const GET = withApiKey(listApprovalPoliciesOp, async ({ actor }) => list((await policiesForKey(actor)).map(serializePolicy), false));
