import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { consumeApprovalOp } from "@/lib/domains/approvals/operations";
import { consumeApproval } from "@/lib/domains/approvals/consume-approval";

// POST /api/v1/approvals/{id}/consume — spend an approved approval once, on the approved action
export const POST = withApiKey(consumeApprovalOp, async ({ actor, params, body }) => json(await consumeApproval(actor, params.id!, body.action)));
