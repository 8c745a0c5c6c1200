import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { completeHandoffOp } from "@/lib/handoffs/operations";
import { finishHandoff } from "@/lib/handoffs/work-handoff";
import { getHandoff } from "@/lib/handoffs/read-handoffs";
import { serializeHandoffWithBody } from "@/lib/handoffs/serialize";

// POST /api/v1/handoffs/{id}/complete — the result goes back to the sender
export const POST = withApiKey(completeHandoffOp, async ({ actor, key, params, body }) => {
  await finishHandoff(actor, params.id!, body.claim_id, { action: "complete", result: body.result });
  const { handoff, body: payload } = await getHandoff(key, params.id!);
  return json(serializeHandoffWithBody(handoff, payload));
});
