import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getHandoffOp } from "@/lib/handoffs/operations";
import { getHandoff } from "@/lib/handoffs/read-handoffs";
import { serializeHandoffWithBody } from "@/lib/handoffs/serialize";

// GET /api/v1/handoffs/{id} — envelope, body and result
export const GET = withApiKey(getHandoffOp, async ({ key, params }) => {
  const { handoff, body } = await getHandoff(key, params.id!);
  return json(serializeHandoffWithBody(handoff, body));
});
