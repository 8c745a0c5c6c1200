import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getHoldOp } from "@/lib/holds/operations";
import { getHold } from "@/lib/holds/get-hold";

// GET /api/v1/holds/{id} — retrieve a hold
export const GET = withApiKey(getHoldOp, async ({ key, params }) => json(await getHold(key, params.id!)));
