import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { failHandoffOp } from "@/lib/domains/handoffs/operations";
import { finishHandoff } from "@/lib/domains/handoffs/work-handoff";
import { serializeHandoff } from "@/lib/domains/handoffs/serialize";

// POST /api/v1/handoffs/{id}/fail — retried while attempts remain, else dead
export const POST = withApiKey(failHandoffOp, async ({ actor, params, body }) =>
  json(serializeHandoff(await finishHandoff(actor, params.id!, body.claim_id, { action: "fail", error: body.error, details: body.details, retry: body.retry }))),
);
