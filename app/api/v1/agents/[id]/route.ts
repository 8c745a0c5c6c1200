import { withApiKey, assertActsAs } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getAgentOp, updateAgentOp } from "@/lib/domains/agents/operations";
import { updateAgent } from "@/lib/domains/agents/update-agent";
import { findAgent } from "@/lib/domains/agents/find-agent";
import { serializeAgent } from "@/lib/domains/agents/serialize";
import { isId } from "@/lib/platform/ids";
import { notFound } from "@/lib/platform/errors";

// GET /api/v1/agents/{id} — retrieve an agent
export const GET = withApiKey(getAgentOp, async ({ key, params }) => {
  if (!isId("agent", params.id!)) throw notFound("agent", params.id!);
  assertActsAs(key, params.id!);
  return json(serializeAgent(await findAgent(key.workspaceId, params.id!)));
});

// PATCH /api/v1/agents/{id} — description, priority ceiling (workspace-wide keys only)
export const PATCH = withApiKey(updateAgentOp, async ({ actor, params, body }) => {
  if (!isId("agent", params.id!)) throw notFound("agent", params.id!);
  return json(serializeAgent(await updateAgent(actor, params.id!, body)));
});
