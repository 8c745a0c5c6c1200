import { withApiKey } from "@/lib/api/with-api-key";
import { created } from "@/lib/api/responses";
import { placeHoldOp } from "@/lib/holds/operations";
import { placeHold } from "@/lib/holds/place-hold";
import { serializeHold } from "@/lib/holds/serialize";
import { APPROVAL_HEADER, gateHold } from "@/lib/approvals/hold-gate";

// POST /api/v1/calendars/{id}/holds — place a tentative hold
export const POST = withApiKey(placeHoldOp, async ({ req, actor, params, body }) => {
  const input = { ...body, calendar_ids: [params.id!] };
  const { hold } = await gateHold(actor, input, req.headers.get(APPROVAL_HEADER), () => placeHold(actor, input));
  return created(serializeHold(hold));
});
