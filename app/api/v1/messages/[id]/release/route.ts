import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { releaseClaimOp } from "@/lib/claims/operations";
import { changeClaim } from "@/lib/claims/claim-message";
import { serializeClaim } from "@/lib/claims/serialize";

// POST /api/v1/messages/{id}/release — give a claimed message back
export const POST = withApiKey(releaseClaimOp, async ({ actor, params, body }) => json(serializeClaim(await changeClaim(actor, params.id!, "release", { claimId: body.claim_id }))));
