import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { verifyLeaseOp } from "@/lib/leases/operations";
import { verifyFencingToken } from "@/lib/leases/get-lease";

// POST /api/v1/leases/verify — is this fencing token still the newest, its lease live?
export const POST = withApiKey(verifyLeaseOp, async ({ key, body }) => json(await verifyFencingToken(key.workspaceId, body)));
