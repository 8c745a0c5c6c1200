import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { verifyAuditOp } from "@/lib/audit/operations";
import { verifyChainThrottled } from "@/lib/audit/verify-throttled";

// GET /api/v1/audit/verify — recompute the hash chain
export const GET = withApiKey(verifyAuditOp, async ({ key }) => {
  return json(await verifyChainThrottled(key.workspaceId));
});
