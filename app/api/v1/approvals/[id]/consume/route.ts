import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { consumeApprovalOp } from "@/lib/approvals/operations";
import { consumeApproval } from "@/lib/approvals/consume-approval";

// POST /api/v1/approvals/{id}/consume — spend an approved approval once, on the approved action
export const POST = withApiKey(consumeApprovalOp, async ({ actor, params, body }) => json(await consumeApproval(actor, params.id!, body.action)));
