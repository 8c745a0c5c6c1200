import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import {
  createEndpointInput,
  deletedSchema,
  deliverySchema,
  endpointSchema,
  endpointWithSecretSchema,
  listDeliveriesQuery,
  updateEndpointInput,
} from "./schemas";

const AGENT_KEYS = "An agent-bound key manages only endpoints filtered to exactly its own agent (`agent_ids: [its agent]`).";
const GATED =
  "While the agent is tainted (it read mail from outside the workspace within the taint window, as the server recorded), the built-in rule (and any webhook_endpoint.change rule) answers 403 approval_required naming the approval it opened: an endpoint is where events leave. Once a person approved, the same request with the AgentDraft-Approval-Id header spends it on exactly that change.";

export const createWebhookEndpointOp = defineOperation({
  method: "POST",
  path: "/v1/webhook-endpoints",
  operationId: "createWebhookEndpoint",
  summary: "Create a webhook endpoint",
  description: `Returns the signing secret (\`whsec_...\`) this once. ${AGENT_KEYS} For such a key, agent_ids defaults to its agent. ${GATED}`,
  tag: "Webhooks",
  scope: "webhooks",
  body: createEndpointInput,
  responses: { 201: { description: "The endpoint, with its secret", schema: endpointWithSecretSchema } },
});

export const listWebhookEndpointsOp = defineOperation({
  method: "GET",
  path: "/v1/webhook-endpoints",
  operationId: "listWebhookEndpoints",
  summary: "List webhook endpoints, newest first",
  description: AGENT_KEYS,
  tag: "Webhooks",
  scope: "webhooks",
  query: paginationQuery,
  responses: { 200: { description: "A page of endpoints", schema: listOf(endpointSchema) } },
});

export const getWebhookEndpointOp = defineOperation({
  method: "GET",
  path: "/v1/webhook-endpoints/{id}",
  operationId: "getWebhookEndpoint",
  summary: "Retrieve a webhook endpoint",
  tag: "Webhooks",
  scope: "webhooks",
  responses: { 200: { description: "The endpoint", schema: endpointSchema } },
});

export const updateWebhookEndpointOp = defineOperation({
  method: "PATCH",
  path: "/v1/webhook-endpoints/{id}",
  operationId: "updateWebhookEndpoint",
  summary: "Update a webhook endpoint",
  description: `\`enabled: true\` re-enables a disabled endpoint and resets its failure count. A change of url, event_types or agent_ids, or enabled: true, is gated: ${GATED} A description-only change or a disable is not.`,
  tag: "Webhooks",
  scope: "webhooks",
  body: updateEndpointInput,
  responses: { 200: { description: "The endpoint", schema: endpointSchema } },
});

export const deleteWebhookEndpointOp = defineOperation({
  method: "DELETE",
  path: "/v1/webhook-endpoints/{id}",
  operationId: "deleteWebhookEndpoint",
  summary: "Delete a webhook endpoint and its delivery log",
  tag: "Webhooks",
  scope: "webhooks",
  responses: { 200: { description: "Deleted", schema: deletedSchema } },
});

export const rotateWebhookSecretOp = defineOperation({
  method: "POST",
  path: "/v1/webhook-endpoints/{id}/rotate-secret",
  operationId: "rotateWebhookEndpointSecret",
  summary: "Rotate an endpoint's signing secret",
  description: "Returns the new secret this once. The previous secret stays valid for 24 hours: deliveries carry both signatures until then.",
  tag: "Webhooks",
  scope: "webhooks",
  responses: { 200: { description: "The endpoint, with its new secret", schema: endpointWithSecretSchema } },
});

export const listWebhookDeliveriesOp = defineOperation({
  method: "GET",
  path: "/v1/webhook-endpoints/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "An endpoint's delivery log, newest first",
  tag: "Webhooks",
  scope: "webhooks",
  query: listDeliveriesQuery,
  responses: { 200: { description: "A page of deliveries", schema: listOf(deliverySchema) } },
});

export const retryWebhookDeliveryOp = defineOperation({
  method: "POST",
  path: "/v1/webhook-deliveries/{id}/retry",
  operationId: "retryWebhookDelivery",
  summary: "Attempt a delivery again now",
  description: "Any status; the same webhook-id is sent. The endpoint must be enabled (409 otherwise).",
  tag: "Webhooks",
  scope: "webhooks",
  responses: { 202: { description: "The delivery, scheduled now", schema: deliverySchema } },
});
