import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { rotateWebhookSecretOp } from "@/lib/domains/webhooks/operations";
import { rotateSecret } from "@/lib/domains/webhooks/rotate-secret";
import { serializeEndpointWithSecret } from "@/lib/domains/webhooks/serialize";

// POST /api/v1/webhook-endpoints/{id}/rotate-secret — new secret; the old one is valid 24 h more
export const POST = withApiKey(rotateWebhookSecretOp, async ({ actor, params }) => {
  return json(serializeEndpointWithSecret(await rotateSecret(actor, params.id!)));
});
