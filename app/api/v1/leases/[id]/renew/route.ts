import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { renewLeaseOp } from "@/lib/leases/operations";
import { changeLease } from "@/lib/leases/change-lease";
import { serializeLease } from "@/lib/leases/serialize";

// POST /api/v1/leases/{id}/renew — heartbeat
export const POST = withApiKey(renewLeaseOp, async ({ actor, params, body }) => json(serializeLease(await changeLease(actor, params.id!, "renew", body.ttl_seconds))));
