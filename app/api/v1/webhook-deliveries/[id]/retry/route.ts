import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { retryWebhookDeliveryOp } from "@/lib/domains/webhooks/operations";
import { retryDelivery } from "@/lib/domains/webhooks/retry-delivery";
import { serializeDelivery } from "@/lib/domains/webhooks/serialize";

// POST /api/v1/webhook-deliveries/{id}/retry — attempt a delivery again now
export const POST = withApiKey(retryWebhookDeliveryOp, async ({ actor, params }) => {
  return json(serializeDelivery(await retryDelivery(actor, params.id!)), 202);
});
