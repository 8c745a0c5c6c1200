import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getApprovalPolicyOp } from "@/lib/approvals/operations";
import { getPolicyForKey, serializePolicy } from "@/lib/approvals/policies";

// GET /api/v1/approval-policies/{id} — one rule
export const GET = withApiKey(getApprovalPolicyOp, async ({ actor, params }) => json(serializePolicy(await getPolicyForKey(actor, params.id!))));
