import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, json } from "@/lib/platform/api/responses";
import { forwardMessageOp } from "@/lib/domains/mail/operations";
import { getMessage } from "@/lib/domains/mail/read-mail";
import { forwardOrHold } from "@/lib/domains/approvals/mail-gate";

// POST /api/v1/messages/{id}/forward — forward the message with its attachments (or hold it for approval: 202)
export const POST = withApiKey(forwardMessageOp, async ({ actor, params, body }) => {
  const { message, approval, notes } = await forwardOrHold(actor, params.id!, body);
  const shown = { ...(await getMessage(actor, message.id)), ...(notes.length ? { attachment_notes: notes } : {}) };
  return approval ? json(shown, 202) : created(shown);
});
