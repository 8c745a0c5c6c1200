import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listWebhookDeliveriesOp } from "@/lib/domains/webhooks/operations";
import { listDeliveries } from "@/lib/domains/webhooks/list-deliveries";
import { serializeDelivery } from "@/lib/domains/webhooks/serialize";

// GET /api/v1/webhook-endpoints/{id}/deliveries — the endpoint's delivery log, newest first
export const GET = withApiKey(listWebhookDeliveriesOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listDeliveries(actor, params.id!, query);
  return list(items.map(serializeDelivery), hasMore);
});
