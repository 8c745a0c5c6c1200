import type { WebhookEventRow } from "../../../db/schema";

/** An event as webhooks and the event stream carry it: the same JSON in both. */
export function eventPayload(event: Pick<WebhookEventRow, "id" | "type" | "createdAt" | "data" | "traceId">) {
  return {
    type: event.type,
    id: event.id,
    created_at: event.createdAt.toISOString(),
    data: event.data,
    ...(event.traceId ? { trace_id: event.traceId } : {}),
  };
}
