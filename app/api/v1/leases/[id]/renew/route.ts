import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { renewLeaseOp } from "@/lib/domains/leases/operations";
import { changeLease } from "@/lib/domains/leases/change-lease";
import { serializeLease } from "@/lib/domains/leases/serialize";

// POST /api/v1/leases/{id}/renew — heartbeat
export const POST = withApiKey(renewLeaseOp, async ({ actor, params, body }) => json(serializeLease(await changeLease(actor, params.id!, "renew", body.ttl_seconds))));
