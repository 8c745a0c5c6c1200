import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { checkApprovalOp } from "@/lib/approvals/operations";
import { checkApproval } from "@/lib/approvals/approvals";

// POST /api/v1/approvals/check — does this action need approval?
export const POST = withApiKey(checkApprovalOp, async ({ actor, body }) => json(await checkApproval(actor, body)));
