import { withApiKey } from "@/lib/platform/api/with-api-key";
import { getMessageSourceOp } from "@/lib/domains/mail/operations";
import { getMessageSource } from "@/lib/domains/mail/read-mail";
import { messageSourceResponse } from "@/lib/domains/mail/attachment-response";

// GET /api/v1/messages/{id}/raw — the message as received or sent, streamed from storage
export const GET = withApiKey(getMessageSourceOp, async ({ actor, params }) => {
  const { message, ...source } = await getMessageSource(actor, params.id!);
  return messageSourceResponse(message.id, source);
});
