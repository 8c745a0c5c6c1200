import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { listHoldsOp, placeMultiHoldOp } from "@/lib/holds/operations";
import { placeHold } from "@/lib/holds/place-hold";
import { listHolds } from "@/lib/holds/get-hold";
import { serializeHold } from "@/lib/holds/serialize";
import { APPROVAL_HEADER, gateHold } from "@/lib/approvals/hold-gate";

// POST /api/v1/holds — hold several calendars, all or nothing
export const POST = withApiKey(placeMultiHoldOp, async ({ req, actor, body }) => {
  const { hold } = await gateHold(actor, body, req.headers.get(APPROVAL_HEADER), () => placeHold(actor, body));
  return created(serializeHold(hold));
});

// GET /api/v1/holds?calendar_id&status — list holds
export const GET = withApiKey(listHoldsOp, async ({ key, query }) => {
  const { items, hasMore } = await listHolds(key, query);
  return list(items, hasMore);
});
