import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { extendHandoffOp } from "@/lib/handoffs/operations";
import { finishHandoff } from "@/lib/handoffs/work-handoff";
import { serializeHandoff } from "@/lib/handoffs/serialize";

// POST /api/v1/handoffs/{id}/extend — heartbeat of a live claim
export const POST = withApiKey(extendHandoffOp, async ({ actor, params, body }) =>
  json(serializeHandoff(await finishHandoff(actor, params.id!, body.claim_id, { action: "extend", ttlSeconds: body.ttl_seconds }))),
);
