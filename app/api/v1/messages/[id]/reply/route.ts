import { withApiKey } from "@/lib/api/with-api-key";
import { created } from "@/lib/api/responses";
import { replyToMessageOp } from "@/lib/mail/operations";
import { getMessage } from "@/lib/mail/read-mail";
import { replyToMessage } from "@/lib/mail/outbound/send-message";

// POST /api/v1/messages/{id}/reply — reply in the thread, with In-Reply-To and References
export const POST = withApiKey(replyToMessageOp, async ({ actor, params, body }) => {
  const message = await replyToMessage(actor, params.id!, body);
  return created(await getMessage(actor, message.id));
});
