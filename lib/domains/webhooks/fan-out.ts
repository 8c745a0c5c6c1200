import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { jsonValue } from "../../../db/row-json";
import { DELIVERY_KIND, type OutboxDelivery } from "../../platform/events/outbox";
import { scheduleWork } from "../../platform/jobs/schedule";

/**
 * Fans out one outbox event that has not been yet (written before deliveries were made in the
 * emitting statement, e.g. by an older version): one delivery per matching enabled endpoint,
 * unique per (endpoint, event), each announced as its own unit of work. Idempotent.
 */
export async function fanOutEvent(eventId: string): Promise<{ deliveries: number }> {
  const q = await queryable();
  const { rows } = await q.execute<{ workspace_id: string; deliveries: unknown }>(sql`
    with ev as (update webhook_events set fanned_out_at = now() where id = ${eventId} and fanned_out_at is null returning *)
    select ev.workspace_id, agentdraft_fan_out(ev) as deliveries from ev`);
  if (!rows[0]) return { deliveries: 0 };
  const deliveries = jsonValue<OutboxDelivery[]>(rows[0].deliveries);
  await scheduleWork(DELIVERY_KIND, deliveries.map((d) => ({ id: d.id, workspaceId: rows[0]!.workspace_id, key: d.endpoint_id, dueAt: new Date(d.due_at) })));
  return { deliveries: deliveries.length };
}

/** Events still waiting for fan-out (normally none), for the work registry. */
export const unfannedEventsSource = () =>
  sql`select id, workspace_id, null::text as key, created_at as due_at from webhook_events where fanned_out_at is null`;
