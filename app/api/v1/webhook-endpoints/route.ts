import { withApiKey } from "@/lib/platform/api/with-api-key";
import { APPROVAL_HEADER } from "@/lib/domains/approvals/action-gate";
import { created, list } from "@/lib/platform/api/responses";
import { createWebhookEndpointOp, listWebhookEndpointsOp } from "@/lib/domains/webhooks/operations";
import { createEndpoint } from "@/lib/domains/webhooks/create-endpoint";
import { listEndpoints } from "@/lib/domains/webhooks/list-endpoints";
import { serializeEndpoint, serializeEndpointWithSecret } from "@/lib/domains/webhooks/serialize";

// POST /api/v1/webhook-endpoints — create an endpoint (returns its secret once)
export const POST = withApiKey(createWebhookEndpointOp, async ({ req, actor, body }) => {
  return created(serializeEndpointWithSecret(await createEndpoint(actor, body, req.headers.get(APPROVAL_HEADER))));
});

// GET /api/v1/webhook-endpoints — list endpoints, newest first
export const GET = withApiKey(listWebhookEndpointsOp, async ({ actor, query }) => {
  const { items, hasMore } = await listEndpoints(actor, query);
  return list(items.map(serializeEndpoint), hasMore);
});
