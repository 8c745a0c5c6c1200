import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { commitHoldOp } from "@/lib/holds/operations";
import { commitHold } from "@/lib/holds/commit-hold";
import { serializeHold } from "@/lib/holds/serialize";

// POST /api/v1/holds/{id}/commit — hold → committed events, atomically
export const POST = withApiKey(commitHoldOp, async ({ actor, params }) => {
  const { hold, events } = await commitHold(actor, params.id!);
  return json(serializeHold(hold, events.map((e) => e.id).sort()));
});
