import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { claimHandoffOp } from "@/lib/handoffs/operations";
import { claimHandoff } from "@/lib/handoffs/work-handoff";
import { serializeHandoffWithBody } from "@/lib/handoffs/serialize";

// POST /api/v1/handoffs/{id}/claim — exactly one worker wins
export const POST = withApiKey(claimHandoffOp, async ({ actor, params, body }) => {
  const { handoff, body: payload } = await claimHandoff(actor, params.id!, body.ttl_seconds, body.worker);
  return json({ ...serializeHandoffWithBody(handoff, payload), claim_id: handoff.claimId! });
});
