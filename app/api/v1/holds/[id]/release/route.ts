import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { releaseHoldOp } from "@/lib/domains/holds/operations";
import { releaseHold } from "@/lib/domains/holds/release-hold";
import { serializeHold } from "@/lib/domains/holds/serialize";

// POST /api/v1/holds/{id}/release — give the time back
export const POST = withApiKey(releaseHoldOp, async ({ actor, params }) => json(serializeHold(await releaseHold(actor, params.id!))));
