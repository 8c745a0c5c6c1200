import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { releaseClaimOp } from "@/lib/domains/claims/operations";
import { changeClaim } from "@/lib/domains/claims/claim-message";
import { serializeClaim } from "@/lib/domains/claims/serialize";

// POST /api/v1/messages/{id}/release — give a claimed message back
export const POST = withApiKey(releaseClaimOp, async ({ actor, params, body }) => json(serializeClaim(await changeClaim(actor, params.id!, "release", { claimId: body.claim_id }))));
