import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { labelThreadOp } from "@/lib/domains/mail/operations";
import { labelThread } from "@/lib/domains/mail/read-mail";

// POST /api/v1/threads/{id}/labels — add and remove labels
export const POST = withApiKey(labelThreadOp, async ({ actor, params, body }) => json(await labelThread(actor, params.id!, body)));
