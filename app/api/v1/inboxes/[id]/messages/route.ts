import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { listMessagesOp, sendMessageOp } from "@/lib/mail/operations";
import { listMessages, getMessage } from "@/lib/mail/read-mail";
import { sendMessage } from "@/lib/mail/outbound/send-message";

// GET /api/v1/inboxes/{id}/messages — newest first, filters and full-text search
export const GET = withApiKey(listMessagesOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listMessages(actor, params.id!, query);
  return list(items, hasMore);
});

// POST /api/v1/inboxes/{id}/messages — send a new message (queued for Resend, or captured)
export const POST = withApiKey(sendMessageOp, async ({ actor, params, body }) => {
  const message = await sendMessage(actor, params.id!, body);
  return created(await getMessage(actor, message.id));
});
