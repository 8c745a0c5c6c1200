import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getApprovalOp } from "@/lib/domains/approvals/operations";
import { getApproval } from "@/lib/domains/approvals/approvals";

// GET /api/v1/approvals/{id}?wait=N — retrieve, or long-poll until decided
export const GET = withApiKey(getApprovalOp, async ({ actor, params, query }) => json(await getApproval(actor, params.id!, query.wait ?? 0)));

// A long-poll (`?wait=30`) must not be cut short by the platform (Vercel: maxDuration).
export const maxDuration = 60;
