import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { extendHandoffOp } from "@/lib/domains/handoffs/operations";
import { finishHandoff } from "@/lib/domains/handoffs/work-handoff";
import { serializeHandoff } from "@/lib/domains/handoffs/serialize";

// POST /api/v1/handoffs/{id}/extend — heartbeat of a live claim
export const POST = withApiKey(extendHandoffOp, async ({ actor, params, body }) =>
  json(serializeHandoff(await finishHandoff(actor, params.id!, body.claim_id, { action: "extend", ttlSeconds: body.ttl_seconds }))),
);
