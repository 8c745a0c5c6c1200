import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { createInboxOp, listInboxesOp } from "@/lib/domains/mail/operations";
import { createInbox, listInboxes } from "@/lib/domains/mail/inboxes";
import { serializeInbox } from "@/lib/domains/mail/serialize";

// POST /api/v1/inboxes — give an agent an address
export const POST = withApiKey(createInboxOp, async ({ actor, body }) => created(serializeInbox(await createInbox(actor, body))));

// GET /api/v1/inboxes — list inboxes
export const GET = withApiKey(listInboxesOp, async ({ actor, query }) => {
  const { items, hasMore } = await listInboxes(actor, query);
  return list(items.map(serializeInbox), hasMore);
});
