import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listThreadsOp } from "@/lib/domains/mail/operations";
import { listThreads } from "@/lib/domains/mail/read-mail";
import { serializeThread } from "@/lib/domains/mail/serialize";

// GET /api/v1/inboxes/{id}/threads — newest first
export const GET = withApiKey(listThreadsOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listThreads(actor, params.id!, query);
  return list(items.map((t) => serializeThread(t.thread, t.labels)), hasMore);
});
