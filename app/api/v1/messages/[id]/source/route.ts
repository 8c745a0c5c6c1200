import { withApiKey } from "@/lib/api/with-api-key";
import { getMessageSourceOp } from "@/lib/mail/operations";
import { getMessageSource, sourceResponse } from "@/lib/mail/message-source";

// GET /api/v1/messages/{id}/source — the message's RFC 5322 bytes
export const GET = withApiKey(getMessageSourceOp, async ({ actor, params }) => sourceResponse(params.id!, await getMessageSource(actor, params.id!)));
