import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { createApprovalOp, listApprovalsOp } from "@/lib/domains/approvals/operations";
import { createApproval } from "@/lib/domains/approvals/create-approval";
import { getApproval, listApprovals } from "@/lib/domains/approvals/approvals";

// POST /api/v1/approvals — ask humans to approve an action
export const POST = withApiKey(createApprovalOp, async ({ actor, body }) => {
  const row = await createApproval(actor, body);
  return created(await getApproval(actor, row.id));
});

// GET /api/v1/approvals?status — list approvals
export const GET = withApiKey(listApprovalsOp, async ({ actor, query }) => {
  const { items, hasMore } = await listApprovals(actor, query);
  return list(items, hasMore);
});
