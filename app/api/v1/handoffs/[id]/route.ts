import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getHandoffOp } from "@/lib/domains/handoffs/operations";
import { getHandoff } from "@/lib/domains/handoffs/read-handoffs";
import { serializeHandoffWithBody } from "@/lib/domains/handoffs/serialize";

// GET /api/v1/handoffs/{id} — envelope, body and result
export const GET = withApiKey(getHandoffOp, async ({ key, params }) => {
  const { handoff, body } = await getHandoff(key, params.id!);
  return json(serializeHandoffWithBody(handoff, body));
});
