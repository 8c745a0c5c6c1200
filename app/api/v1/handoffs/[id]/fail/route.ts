import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { failHandoffOp } from "@/lib/handoffs/operations";
import { finishHandoff } from "@/lib/handoffs/work-handoff";
import { serializeHandoff } from "@/lib/handoffs/serialize";

// POST /api/v1/handoffs/{id}/fail — retried while attempts remain, else dead
export const POST = withApiKey(failHandoffOp, async ({ actor, params, body }) =>
  json(serializeHandoff(await finishHandoff(actor, params.id!, body.claim_id, { action: "fail", error: body.error, details: body.details, retry: body.retry }))),
);
