import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { releaseLeaseOp } from "@/lib/domains/leases/operations";
import { changeLease } from "@/lib/domains/leases/change-lease";
import { serializeLease } from "@/lib/domains/leases/serialize";

// POST /api/v1/leases/{id}/release — free the resource
export const POST = withApiKey(releaseLeaseOp, async ({ actor, params }) => json(serializeLease(await changeLease(actor, params.id!, "release"))));
