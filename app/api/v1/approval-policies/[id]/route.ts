import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getApprovalPolicyOp } from "@/lib/domains/approvals/operations";
import { getPolicyForKey, serializePolicy } from "@/lib/domains/approvals/policies";

// GET /api/v1/approval-policies/{id} — one rule
export const GET = withApiKey(getApprovalPolicyOp, async ({ actor, params }) => json(serializePolicy(await getPolicyForKey(actor, params.id!))));
