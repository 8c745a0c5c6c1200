import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { claimMessageOp } from "@/lib/domains/claims/operations";
import { changeClaim } from "@/lib/domains/claims/claim-message";
import { serializeClaim } from "@/lib/domains/claims/serialize";

// POST /api/v1/messages/{id}/claim — claim a received message
export const POST = withApiKey(claimMessageOp, async ({ actor, params, body }) => json(serializeClaim(await changeClaim(actor, params.id!, "claim", { ttlSeconds: body.ttl_seconds, claimId: body.claim_id, worker: body.worker }))));
