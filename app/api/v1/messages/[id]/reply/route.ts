import { withApiKey } from "@/lib/api/with-api-key";
import { created, json } from "@/lib/api/responses";
import { replyToMessageOp } from "@/lib/mail/operations";
import { getMessage } from "@/lib/mail/read-mail";
import { replyOrHold } from "@/lib/approvals/mail-gate";

// POST /api/v1/messages/{id}/reply — reply in the thread, with In-Reply-To and References (or hold it for approval: 202)
export const POST = withApiKey(replyToMessageOp, async ({ actor, params, body }) => {
  const { message, approval } = await replyOrHold(actor, params.id!, body);
  const shown = await getMessage(actor, message.id);
  return approval ? json(shown, 202) : created(shown);
});
