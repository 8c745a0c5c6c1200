import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { cancelApprovalOp } from "@/lib/domains/approvals/operations";
import { cancelApproval } from "@/lib/domains/approvals/approvals";

// POST /api/v1/approvals/{id}/cancel — withdraw a pending approval
export const POST = withApiKey(cancelApprovalOp, async ({ actor, params }) => json(await cancelApproval(actor, params.id!)));
