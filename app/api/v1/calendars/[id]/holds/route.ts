import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created } from "@/lib/platform/api/responses";
import { placeHoldOp } from "@/lib/domains/holds/operations";
import { placeHold } from "@/lib/domains/holds/place-hold";
import { serializeHold } from "@/lib/domains/holds/serialize";
import { APPROVAL_HEADER, gateHold } from "@/lib/domains/approvals/hold-gate";

// POST /api/v1/calendars/{id}/holds — place a tentative hold
export const POST = withApiKey(placeHoldOp, async ({ req, actor, params, body }) => {
  const input = { ...body, calendar_ids: [params.id!] };
  const { hold } = await gateHold(actor, input, req.headers.get(APPROVAL_HEADER), () => placeHold(actor, input, input.rebooks_event_id ?? null));
  return created(serializeHold(hold));
});
