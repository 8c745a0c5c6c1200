import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { retryWebhookDeliveryOp } from "@/lib/webhooks/operations";
import { retryDelivery } from "@/lib/webhooks/retry-delivery";
import { serializeDelivery } from "@/lib/webhooks/serialize";

// POST /api/v1/webhook-deliveries/{id}/retry — attempt a delivery again now
export const POST = withApiKey(retryWebhookDeliveryOp, async ({ actor, params }) => {
  return json(serializeDelivery(await retryDelivery(actor, params.id!)), 202);
});
