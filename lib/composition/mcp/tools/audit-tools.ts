import { listAudit } from "../../../domains/audit/list-audit";
import { listAuditQuery } from "../../../domains/audit/schemas";
import { serializeAuditEntry } from "../../../domains/audit/serialize";
import { verifyChainThrottled } from "../../../domains/audit/verify-throttled";
import { assertActsAs } from "../../../platform/api/with-api-key";
import { READ_ONLY, defineTool } from "../define-tool";

export const queryAuditTool = defineTool({
  name: "query_audit",
  title: "Query the audit trail",
  description:
    "Audit entries, newest first, filtered by resource_id, resource_type, agent_id, action (exact or a prefix like hold.*), trace_id and " +
    "time (from, to). An agent-bound key sees only its own agent's entries.",
  scope: "audit",
  input: listAuditQuery.shape,
  annotations: READ_ONLY,
  run: async ({ key }, args) => {
    const query = listAuditQuery.parse(args);
    if (query.agent_id) assertActsAs(key, query.agent_id);
    const { items, hasMore } = await listAudit(key.workspaceId, { ...query, agent_id: key.agentId ?? query.agent_id });
    return { object: "list", data: items.map(serializeAuditEntry), has_more: hasMore };
  },
});

export const verifyAuditTool = defineTool({
  name: "verify_audit_chain",
  title: "Verify the audit trail",
  description: "Recompute the workspace's audit hash chain and name the first broken link, if any.",
  scope: "audit",
  input: {},
  annotations: READ_ONLY,
  run: ({ key }) => verifyChainThrottled(key.workspaceId),
});

export const AUDIT_TOOLS = [queryAuditTool, verifyAuditTool];
