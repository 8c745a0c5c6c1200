import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { releaseLeaseOp } from "@/lib/leases/operations";
import { changeLease } from "@/lib/leases/change-lease";
import { serializeLease } from "@/lib/leases/serialize";

// POST /api/v1/leases/{id}/release — free the resource
export const POST = withApiKey(releaseLeaseOp, async ({ actor, params }) => json(serializeLease(await changeLease(actor, params.id!, "release"))));
