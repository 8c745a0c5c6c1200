import { withApiKey } from "@/lib/platform/api/with-api-key";
import { APPROVAL_HEADER } from "@/lib/domains/approvals/action-gate";
import { json } from "@/lib/platform/api/responses";
import { deleteWebhookEndpointOp, getWebhookEndpointOp, updateWebhookEndpointOp } from "@/lib/domains/webhooks/operations";
import { findEndpoint } from "@/lib/domains/webhooks/find-endpoint";
import { updateEndpoint } from "@/lib/domains/webhooks/update-endpoint";
import { deleteEndpoint } from "@/lib/domains/webhooks/delete-endpoint";
import { serializeEndpoint } from "@/lib/domains/webhooks/serialize";

// GET /api/v1/webhook-endpoints/{id} — retrieve an endpoint
export const GET = withApiKey(getWebhookEndpointOp, async ({ actor, params }) => {
  return json(serializeEndpoint(await findEndpoint(actor, params.id!)));
});

// PATCH /api/v1/webhook-endpoints/{id} — change URL, filters, description or enabled
export const PATCH = withApiKey(updateWebhookEndpointOp, async ({ req, actor, params, body }) => {
  return json(serializeEndpoint(await updateEndpoint(actor, params.id!, body, req.headers.get(APPROVAL_HEADER))));
});

// DELETE /api/v1/webhook-endpoints/{id} — delete an endpoint and its delivery log
export const DELETE = withApiKey(deleteWebhookEndpointOp, async ({ actor, params }) => {
  const { id } = await deleteEndpoint(actor, params.id!);
  return json({ id, object: "webhook_endpoint", deleted: true });
});
