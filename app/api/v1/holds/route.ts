import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { listHoldsOp, placeMultiHoldOp } from "@/lib/domains/holds/operations";
import { placeHold } from "@/lib/domains/holds/place-hold";
import { listHolds } from "@/lib/domains/holds/get-hold";
import { serializeHold } from "@/lib/domains/holds/serialize";
import { APPROVAL_HEADER, gateHold } from "@/lib/domains/approvals/hold-gate";

// POST /api/v1/holds — hold several calendars, all or nothing
export const POST = withApiKey(placeMultiHoldOp, async ({ req, actor, body }) => {
  const { hold } = await gateHold(actor, body, req.headers.get(APPROVAL_HEADER), () => placeHold(actor, body, body.rebooks_event_id ?? null));
  return created(serializeHold(hold));
});

// GET /api/v1/holds?calendar_id&status — list holds
export const GET = withApiKey(listHoldsOp, async ({ key, query }) => {
  const { items, hasMore } = await listHolds(key, query);
  return list(items, hasMore);
});
