import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { releaseHoldOp } from "@/lib/holds/operations";
import { releaseHold } from "@/lib/holds/release-hold";
import { serializeHold } from "@/lib/holds/serialize";

// POST /api/v1/holds/{id}/release — give the time back
export const POST = withApiKey(releaseHoldOp, async ({ actor, params }) => json(serializeHold(await releaseHold(actor, params.id!))));
