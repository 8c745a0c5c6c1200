import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { extendHoldOp } from "@/lib/holds/operations";
import { extendHold } from "@/lib/holds/extend-hold";
import { serializeHold } from "@/lib/holds/serialize";

// POST /api/v1/holds/{id}/extend — heartbeat
export const POST = withApiKey(extendHoldOp, async ({ actor, params, body }) =>
  json(serializeHold(await extendHold(actor, params.id!, body.hold_ttl_seconds))),
);
