import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getHoldOp } from "@/lib/domains/holds/operations";
import { getHold } from "@/lib/domains/holds/get-hold";

// GET /api/v1/holds/{id} — retrieve a hold
export const GET = withApiKey(getHoldOp, async ({ key, params }) => json(await getHold(key, params.id!)));
