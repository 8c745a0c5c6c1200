import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { listWebhookDeliveriesOp } from "@/lib/webhooks/operations";
import { listDeliveries } from "@/lib/webhooks/list-deliveries";
import { serializeDelivery } from "@/lib/webhooks/serialize";

// GET /api/v1/webhook-endpoints/{id}/deliveries — the endpoint's delivery log, newest first
export const GET = withApiKey(listWebhookDeliveriesOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listDeliveries(actor, params.id!, query);
  return list(items.map(serializeDelivery), hasMore);
});
