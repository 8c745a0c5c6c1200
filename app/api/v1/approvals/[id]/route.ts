import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getApprovalOp } from "@/lib/approvals/operations";
import { getApproval } from "@/lib/approvals/approvals";

// GET /api/v1/approvals/{id}?wait=N — retrieve, or long-poll until decided
export const GET = withApiKey(getApprovalOp, async ({ actor, params, query }) => json(await getApproval(actor, params.id!, query.wait ?? 0)));

// A long-poll (`?wait=30`) must not be cut short by the platform (Vercel: maxDuration).
export const maxDuration = 60;
