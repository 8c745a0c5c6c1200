import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { claimHandoffOp } from "@/lib/domains/handoffs/operations";
import { claimHandoff } from "@/lib/domains/handoffs/work-handoff";
import { serializeHandoffWithBody } from "@/lib/domains/handoffs/serialize";

// POST /api/v1/handoffs/{id}/claim — exactly one worker wins
export const POST = withApiKey(claimHandoffOp, async ({ actor, params, body }) => {
  const { handoff, body: payload } = await claimHandoff(actor, params.id!, body.ttl_seconds, body.worker);
  return json({ ...serializeHandoffWithBody(handoff, payload), claim_id: handoff.claimId! });
});
