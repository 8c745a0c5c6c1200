import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getMessageOp } from "@/lib/domains/mail/operations";
import { getMessage } from "@/lib/domains/mail/read-mail";

// GET /api/v1/messages/{id} — retrieve a message
export const GET = withApiKey(getMessageOp, async ({ actor, params }) => json(await getMessage(actor, params.id!)));
