import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { listHoldsOp, placeMultiHoldOp } from "@/lib/holds/operations";
import { placeHold } from "@/lib/holds/place-hold";
import { listHolds } from "@/lib/holds/get-hold";
import { serializeHold } from "@/lib/holds/serialize";

// POST /api/v1/holds — hold several calendars, all or nothing
export const POST = withApiKey(placeMultiHoldOp, async ({ actor, body }) => created(serializeHold((await placeHold(actor, body)).hold)));

// GET /api/v1/holds?calendar_id&status — list holds
export const GET = withApiKey(listHoldsOp, async ({ key, query }) => {
  const { items, hasMore } = await listHolds(key, query);
  return list(items, hasMore);
});
