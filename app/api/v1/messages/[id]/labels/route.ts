import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { labelMessageOp } from "@/lib/domains/mail/operations";
import { labelMessage } from "@/lib/domains/mail/read-mail";

// POST /api/v1/messages/{id}/labels — add and remove labels
export const POST = withApiKey(labelMessageOp, async ({ actor, params, body }) => json(await labelMessage(actor, params.id!, body)));
