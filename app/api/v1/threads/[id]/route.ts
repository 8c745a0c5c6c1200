import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getThreadOp } from "@/lib/mail/operations";
import { getThread } from "@/lib/mail/read-mail";
import { serializeThread } from "@/lib/mail/serialize";

// GET /api/v1/threads/{id} — a thread with its messages, oldest first
export const GET = withApiKey(getThreadOp, async ({ actor, params }) => {
  const { thread, messages } = await getThread(actor, params.id!);
  return json({ ...serializeThread(thread), messages });
});
