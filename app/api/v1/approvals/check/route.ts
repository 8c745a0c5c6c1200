import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { checkApprovalOp } from "@/lib/domains/approvals/operations";
import { checkApproval } from "@/lib/domains/approvals/approvals";

// POST /api/v1/approvals/check — does this action need approval?
export const POST = withApiKey(checkApprovalOp, async ({ actor, body }) => json(await checkApproval(actor, body)));
