import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, json } from "@/lib/platform/api/responses";
import { replyToMessageOp } from "@/lib/domains/mail/operations";
import { getMessage } from "@/lib/domains/mail/read-mail";
import { replyOrHold } from "@/lib/domains/approvals/mail-gate";

// POST /api/v1/messages/{id}/reply — reply in the thread, with In-Reply-To and References (or hold it for approval: 202)
export const POST = withApiKey(replyToMessageOp, async ({ actor, params, body }) => {
  const { message, approval, notes } = await replyOrHold(actor, params.id!, body);
  const shown = { ...(await getMessage(actor, message.id)), ...(notes.length ? { attachment_notes: notes } : {}) };
  return approval ? json(shown, 202) : created(shown);
});
