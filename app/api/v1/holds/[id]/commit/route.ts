import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { commitHoldOp } from "@/lib/domains/holds/operations";
import { commitHold } from "@/lib/domains/holds/commit-hold";
import { serializeHold } from "@/lib/domains/holds/serialize";

// POST /api/v1/holds/{id}/commit — hold → committed events, atomically
export const POST = withApiKey(commitHoldOp, async ({ actor, params }) => {
  const { hold, events } = await commitHold(actor, params.id!);
  return json(serializeHold(hold, events.map((e) => e.id).sort()));
});
