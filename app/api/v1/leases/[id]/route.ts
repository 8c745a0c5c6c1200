import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getLeaseOp } from "@/lib/leases/operations";
import { getLease } from "@/lib/leases/get-lease";

// GET /api/v1/leases/{id} — retrieve a lease
export const GET = withApiKey(getLeaseOp, async ({ key, params }) => json(await getLease(key, params.id!)));
