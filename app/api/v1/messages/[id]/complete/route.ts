import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { completeClaimOp } from "@/lib/domains/claims/operations";
import { changeClaim } from "@/lib/domains/claims/claim-message";
import { serializeClaim } from "@/lib/domains/claims/serialize";

// POST /api/v1/messages/{id}/complete — mark a claimed message handled
export const POST = withApiKey(completeClaimOp, async ({ actor, params, body }) => json(serializeClaim(await changeClaim(actor, params.id!, "complete", { claimId: body.claim_id }))));
