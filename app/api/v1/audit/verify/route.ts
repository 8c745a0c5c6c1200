import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { verifyAuditOp } from "@/lib/audit/operations";
import { verifyChain } from "@/lib/audit/verify-chain";

// GET /api/v1/audit/verify — recompute the hash chain
export const GET = withApiKey(verifyAuditOp, async ({ key }) => {
  const result = await verifyChain(key.workspaceId);
  return json({ object: "audit_verification", ...result, verified_at: new Date().toISOString() });
});
