import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { cancelApprovalOp } from "@/lib/approvals/operations";
import { cancelApproval } from "@/lib/approvals/approvals";

// POST /api/v1/approvals/{id}/cancel — withdraw a pending approval
export const POST = withApiKey(cancelApprovalOp, async ({ actor, params }) => json(await cancelApproval(actor, params.id!)));
