import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { createAgentOp, listAgentsOp } from "@/lib/agents/operations";
import { createAgent } from "@/lib/agents/create-agent";
import { listAgents } from "@/lib/agents/list-agents";
import { serializeAgent } from "@/lib/agents/serialize";

// POST /api/v1/agents — create an agent
export const POST = withApiKey(createAgentOp, async ({ actor, body }) => {
  return created(serializeAgent(await createAgent(actor, body)));
});

// GET /api/v1/agents — list agents, newest first
export const GET = withApiKey(listAgentsOp, async ({ key, query }) => {
  const { items, hasMore } = await listAgents(key.workspaceId, query, key.agentId);
  return list(items.map(serializeAgent), hasMore);
});
