import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getMessageOp } from "@/lib/mail/operations";
import { getMessage } from "@/lib/mail/read-mail";

// GET /api/v1/messages/{id} — retrieve a message
export const GET = withApiKey(getMessageOp, async ({ actor, params }) => json(await getMessage(actor, params.id!)));
