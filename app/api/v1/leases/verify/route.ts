import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { verifyLeaseOp } from "@/lib/domains/leases/operations";
import { verifyFencingToken } from "@/lib/domains/leases/get-lease";

// POST /api/v1/leases/verify — is this fencing token still the newest, its lease live?
export const POST = withApiKey(verifyLeaseOp, async ({ key, body }) => json(await verifyFencingToken(key.workspaceId, body)));
