import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { createAgentOp, listAgentsOp } from "@/lib/domains/agents/operations";
import { createAgent } from "@/lib/domains/agents/create-agent";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { serializeAgent } from "@/lib/domains/agents/serialize";

// POST /api/v1/agents — create an agent
export const POST = withApiKey(createAgentOp, async ({ actor, body }) => {
  return created(serializeAgent(await createAgent(actor, body)));
});

// GET /api/v1/agents — list agents, newest first
export const GET = withApiKey(listAgentsOp, async ({ key, query }) => {
  const { items, hasMore } = await listAgents(key.workspaceId, query, key.agentId);
  return list(items.map(serializeAgent), hasMore);
});
