import { withApiKey, assertActsAs } from "@/lib/platform/api/with-api-key";
import { exportAuditOp } from "@/lib/domains/audit/operations";
import { auditExportStream } from "@/lib/domains/audit/export-audit";

// GET /api/v1/audit/export — JSON Lines, oldest first, streamed
export const GET = withApiKey(exportAuditOp, async ({ key, query }) => {
  if (query.agent_id) assertActsAs(key, query.agent_id);
  const stream = auditExportStream(key.workspaceId, { ...query, agent_id: key.agentId ?? query.agent_id });
  return new Response(stream, {
    headers: {
      "content-type": "application/jsonl; charset=utf-8",
      "content-disposition": `attachment; filename="audit-${key.workspaceId}.jsonl"`,
      "cache-control": "no-store",
    },
  });
});
