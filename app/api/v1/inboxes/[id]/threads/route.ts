import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { listThreadsOp } from "@/lib/mail/operations";
import { listThreads } from "@/lib/mail/read-mail";
import { serializeThread } from "@/lib/mail/serialize";

// GET /api/v1/inboxes/{id}/threads — newest first
export const GET = withApiKey(listThreadsOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listThreads(actor, params.id!, query);
  return list(items.map(serializeThread), hasMore);
});
