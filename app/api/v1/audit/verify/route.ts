import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { verifyAuditOp } from "@/lib/audit/operations";
import { verifyChain } from "@/lib/audit/verify-chain";

// GET /api/v1/audit/verify[?checkpoint=<jws>] — recompute the hash chain, against a signed checkpoint
export const GET = withApiKey(verifyAuditOp, async ({ key, query }) => {
  const result = await verifyChain(key.workspaceId, { checkpoint: query.checkpoint });
  return json({ object: "audit_verification", ...result, verified_at: new Date().toISOString() });
});
