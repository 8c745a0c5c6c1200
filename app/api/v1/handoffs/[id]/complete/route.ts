import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { completeHandoffOp } from "@/lib/domains/handoffs/operations";
import { finishHandoff } from "@/lib/domains/handoffs/work-handoff";
import { getHandoff } from "@/lib/domains/handoffs/read-handoffs";
import { serializeHandoffWithBody } from "@/lib/domains/handoffs/serialize";

// POST /api/v1/handoffs/{id}/complete — the result goes back to the sender
export const POST = withApiKey(completeHandoffOp, async ({ actor, key, params, body }) => {
  await finishHandoff(actor, params.id!, body.claim_id, { action: "complete", result: body.result });
  const { handoff, body: payload } = await getHandoff(key, params.id!);
  return json(serializeHandoffWithBody(handoff, payload));
});
