import { withApiKey } from "@/lib/api/with-api-key";
import { created } from "@/lib/api/responses";
import { placeHoldOp } from "@/lib/holds/operations";
import { placeHold } from "@/lib/holds/place-hold";
import { serializeHold } from "@/lib/holds/serialize";

// POST /api/v1/calendars/{id}/holds — place a tentative hold
export const POST = withApiKey(placeHoldOp, async ({ actor, params, body }) => {
  const { hold } = await placeHold(actor, { ...body, calendar_ids: [params.id!] });
  return created(serializeHold(hold));
});
