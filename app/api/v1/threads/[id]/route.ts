import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getThreadOp } from "@/lib/domains/mail/operations";
import { getThread } from "@/lib/domains/mail/read-mail";
import { serializeThread } from "@/lib/domains/mail/serialize";

// GET /api/v1/threads/{id} — a thread with its messages, oldest first
export const GET = withApiKey(getThreadOp, async ({ actor, params }) => {
  const { thread, labels, messages } = await getThread(actor, params.id!);
  return json({ ...serializeThread(thread, labels), messages });
});
