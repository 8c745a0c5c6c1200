import { sql } from "drizzle-orm";
import type { Transaction } from "../../db/client";
import type { WebhookEventRow } from "../../db/schema";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { scheduleWork } from "../jobs/schedule";
import { deliveryIdSql, DELIVERY_KIND, eventRowFrom, type RawEventRow } from "../webhooks/fan-out";

/** Every event type a webhook endpoint can subscribe to (SPEC §6). */
export const EVENT_TYPES = [
  "email.received",
  "email.sent",
  "email.bounced",
  "hold.created",
  "hold.preempted",
  "hold.expired",
  "hold.released",
  "hold.committed",
  "event.cancelled",
  "approval.requested",
  "approval.resolved",
  "calendar.synced",
  "calendar.sync_failed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event to the outbox inside the caller's transaction, and in the same statement one
 * delivery per matching enabled endpoint: both exist exactly when the change that caused them
 * committed. After the commit each delivery is announced as its own unit of work.
 */
export async function emitEvent(
  tx: Transaction,
  actor: Actor,
  event: { type: EventType; agentId?: string | null; data: Record<string, unknown> },
): Promise<WebhookEventRow> {
  const { rows } = await tx.execute<RawEventRow & { deliveries: { id: string; endpoint_id: string }[] }>(sql`
    with ev as (
      insert into webhook_events (id, workspace_id, type, agent_id, data, trace_id, fanned_out_at)
      values (${newId("webhookEvent")}, ${actor.workspaceId}, ${event.type}, ${event.agentId ?? null}, ${JSON.stringify(event.data)}::jsonb, ${actor.traceId ?? null}, now())
      returning *
    ), d as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at)
      select ${deliveryIdSql(sql`ev.id`, sql`e.id`)}, ev.workspace_id, e.id, ev.id, ev.type, ev.created_at
      from ev join webhook_endpoints e on e.workspace_id = ev.workspace_id and e.enabled
        and (e.event_types is null or ev.type = any(e.event_types))
        and (e.agent_ids is null or (ev.agent_id is not null and ev.agent_id = any(e.agent_ids)))
      returning id, endpoint_id
    )
    select ev.*, coalesce((select json_agg(json_build_object('id', d.id, 'endpoint_id', d.endpoint_id)) from d), '[]'::json) as deliveries
    from ev`);
  const raw = rows[0]!;
  const row = eventRowFrom(raw);
  const deliveries = typeof raw.deliveries === "string" ? (JSON.parse(raw.deliveries) as typeof raw.deliveries) : raw.deliveries;
  scheduleWork(
    DELIVERY_KIND,
    deliveries.map((d) => ({ id: d.id, workspaceId: row.workspaceId, key: d.endpoint_id, dueAt: row.createdAt })),
  );
  return row;
}
