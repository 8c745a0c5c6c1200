import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { listMessagesOp } from "@/lib/mail/operations";
import { listMessages } from "@/lib/mail/read-mail";

// GET /api/v1/inboxes/{id}/messages — newest first, filters and full-text search
export const GET = withApiKey(listMessagesOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listMessages(actor, params.id!, query);
  return list(items, hasMore);
});
