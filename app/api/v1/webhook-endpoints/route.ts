import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { createWebhookEndpointOp, listWebhookEndpointsOp } from "@/lib/webhooks/operations";
import { createEndpoint } from "@/lib/webhooks/create-endpoint";
import { listEndpoints } from "@/lib/webhooks/list-endpoints";
import { serializeEndpoint, serializeEndpointWithSecret } from "@/lib/webhooks/serialize";

// POST /api/v1/webhook-endpoints — create an endpoint (returns its secret once)
export const POST = withApiKey(createWebhookEndpointOp, async ({ actor, body }) => {
  return created(serializeEndpointWithSecret(await createEndpoint(actor, body)));
});

// GET /api/v1/webhook-endpoints — list endpoints, newest first
export const GET = withApiKey(listWebhookEndpointsOp, async ({ actor, query }) => {
  const { items, hasMore } = await listEndpoints(actor, query);
  return list(items.map(serializeEndpoint), hasMore);
});
