import { withApiKey, assertActsAs } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listAuditOp } from "@/lib/domains/audit/operations";
import { listAudit } from "@/lib/domains/audit/list-audit";
import { serializeAuditEntry } from "@/lib/domains/audit/serialize";

// GET /api/v1/audit — audit entries, newest first, filtered
export const GET = withApiKey(listAuditOp, async ({ key, query }) => {
  if (query.agent_id) assertActsAs(key, query.agent_id);
  const { items, hasMore } = await listAudit(key.workspaceId, { ...query, agent_id: key.agentId ?? query.agent_id });
  return list(items.map(serializeAuditEntry), hasMore);
});
