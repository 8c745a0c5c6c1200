import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { createHandoffOp, listHandoffsOp } from "@/lib/domains/handoffs/operations";
import { createHandoff } from "@/lib/domains/handoffs/create-handoff";
import { listHandoffs } from "@/lib/domains/handoffs/read-handoffs";
import { serializeHandoff } from "@/lib/domains/handoffs/serialize";

// POST /api/v1/handoffs — hand work to another agent
export const POST = withApiKey(createHandoffOp, async ({ actor, body }) => created(serializeHandoff(await createHandoff(actor, body))));

// GET /api/v1/handoffs?status&type&role — envelopes, newest first
export const GET = withApiKey(listHandoffsOp, async ({ key, query }) => {
  const { items, hasMore } = await listHandoffs(key, query);
  return list(items.map(serializeHandoff), hasMore);
});
