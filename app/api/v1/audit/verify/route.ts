import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { verifyAuditOp } from "@/lib/audit/operations";
import { verifyChainThrottled } from "@/lib/audit/verify-throttled";

// GET /api/v1/audit/verify[?checkpoint=<jws>] — recompute the hash chain, against a signed checkpoint
export const GET = withApiKey(verifyAuditOp, async ({ key, query }) => {
  return json(await verifyChainThrottled(key.workspaceId, { checkpoint: query.checkpoint }));
});
