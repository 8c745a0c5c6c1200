import type { WebhookDeliveryRow, WebhookEndpointRow } from "../../../db/schema";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const serializeEndpoint = (e: WebhookEndpointRow) => ({
  id: e.id,
  object: "webhook_endpoint" as const,
  url: e.url,
  description: e.description,
  event_types: e.eventTypes,
  agent_ids: e.agentIds,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  disabled_at: iso(e.disabledAt),
  previous_secret_expires_at: e.previousSecretExpiresAt && e.previousSecretExpiresAt > new Date() ? iso(e.previousSecretExpiresAt) : null,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
});

/** Only creation and rotation return the secret. */
export const serializeEndpointWithSecret = (e: WebhookEndpointRow) => ({ ...serializeEndpoint(e), secret: e.secret });

export const serializeDelivery = (d: WebhookDeliveryRow) => ({
  id: d.id,
  object: "webhook_delivery" as const,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  event_type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: iso(d.nextAttemptAt),
  last_attempt_at: iso(d.lastAttemptAt),
  response_status: d.lastResponseStatus,
  latency_ms: d.lastLatencyMs,
  error: d.lastError,
  created_at: d.createdAt.toISOString(),
  completed_at: iso(d.completedAt),
});
