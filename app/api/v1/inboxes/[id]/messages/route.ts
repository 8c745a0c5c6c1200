import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, json, list } from "@/lib/platform/api/responses";
import { listMessagesOp, sendMessageOp } from "@/lib/domains/mail/operations";
import { listMessages, getMessage } from "@/lib/domains/mail/read-mail";
import { sendOrHold } from "@/lib/domains/approvals/mail-gate";

// GET /api/v1/inboxes/{id}/messages — newest first, filters and full-text search
export const GET = withApiKey(listMessagesOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listMessages(actor, params.id!, query);
  return list(items, hasMore);
});

// POST /api/v1/inboxes/{id}/messages — send a new message (queued for Resend, or captured), or hold it for approval (202)
export const POST = withApiKey(sendMessageOp, async ({ actor, params, body }) => {
  const { message, approval, notes } = await sendOrHold(actor, params.id!, body);
  const shown = { ...(await getMessage(actor, message.id)), ...(notes.length ? { attachment_notes: notes } : {}) };
  return approval ? json(shown, 202) : created(shown);
});
