import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { extendHoldOp } from "@/lib/domains/holds/operations";
import { extendHold } from "@/lib/domains/holds/extend-hold";
import { serializeHold } from "@/lib/domains/holds/serialize";

// POST /api/v1/holds/{id}/extend — heartbeat
export const POST = withApiKey(extendHoldOp, async ({ actor, params, body }) =>
  json(serializeHold(await extendHold(actor, params.id!, body.hold_ttl_seconds))),
);
