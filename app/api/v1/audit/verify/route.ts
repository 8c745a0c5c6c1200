import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { verifyAuditOp } from "@/lib/domains/audit/operations";
import { verifyChainThrottled } from "@/lib/domains/audit/verify-throttled";

// GET /api/v1/audit/verify[?checkpoint=<jws>] — recompute the hash chain, against a signed checkpoint
export const GET = withApiKey(verifyAuditOp, async ({ key, query }) => {
  return json(await verifyChainThrottled(key.workspaceId, { checkpoint: query.checkpoint }));
});
