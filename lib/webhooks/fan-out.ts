import { sql, type SQL } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { scheduleWork } from "../jobs/schedule";

/** The work kind that delivers one event to one endpoint (lib/jobs/registry.ts). */
export const DELIVERY_KIND = "webhook.deliver";

/**
 * A delivery's id, made in SQL from its event and endpoint: `whd_`, the event id's time part
 * (so deliveries sort by event time) and 16 characters of md5(event, endpoint), which are
 * Crockford base32 digits too. Deterministic, so fanning out an event twice adds nothing.
 */
export const deliveryIdSql = (eventId: SQL, endpointId: SQL) => sql`'whd_' || substr(${eventId}, 5, 10) || substr(md5(${eventId} || ${endpointId}), 1, 16)`;

/**
 * Fans out one outbox event that has not been yet (written before deliveries were made in the
 * emitting statement, e.g. by an older version): one delivery per matching enabled endpoint,
 * unique per (endpoint, event), each announced as its own unit of work. Idempotent.
 */
export async function fanOutEvent(eventId: string): Promise<{ deliveries: number }> {
  return transaction(async (tx) => {
    const { rows } = await tx.execute<{ id: string; workspace_id: string; endpoint_id: string; due_at: string | Date }>(sql`
      with ev as (
        update webhook_events set fanned_out_at = now() where id = ${eventId} and fanned_out_at is null returning *
      )
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at)
      select ${deliveryIdSql(sql`ev.id`, sql`e.id`)}, ev.workspace_id, e.id, ev.id, ev.type, ev.created_at
      from ev join webhook_endpoints e on e.workspace_id = ev.workspace_id and e.enabled
        and (e.event_types is null or ev.type = any(e.event_types))
        and (e.agent_ids is null or (ev.agent_id is not null and ev.agent_id = any(e.agent_ids)))
      on conflict do nothing
      returning id, workspace_id, endpoint_id, next_attempt_at as due_at`);
    scheduleWork(DELIVERY_KIND, rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id, key: r.endpoint_id, dueAt: new Date(r.due_at) })));
    return { deliveries: rows.length };
  });
}

/** Events still waiting for fan-out (normally none), for the work registry. */
export const unfannedEventsSource = () =>
  sql`select id, workspace_id, null::text as key, created_at as due_at from webhook_events where fanned_out_at is null`;
