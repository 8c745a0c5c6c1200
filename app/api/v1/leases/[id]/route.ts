import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getLeaseOp } from "@/lib/domains/leases/operations";
import { getLease } from "@/lib/domains/leases/get-lease";

// GET /api/v1/leases/{id} — retrieve a lease
export const GET = withApiKey(getLeaseOp, async ({ key, params }) => json(await getLease(key, params.id!)));
