import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { completeClaimOp } from "@/lib/claims/operations";
import { changeClaim } from "@/lib/claims/claim-message";
import { serializeClaim } from "@/lib/claims/serialize";

// POST /api/v1/messages/{id}/complete — mark a claimed message handled
export const POST = withApiKey(completeClaimOp, async ({ actor, params, body }) => json(serializeClaim(await changeClaim(actor, params.id!, "complete", { claimId: body.claim_id }))));
