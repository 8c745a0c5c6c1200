import { sql } from "drizzle-orm";
import { getDb } from "../../db/client";

/**
 * Pairs of busy things that overlap on one calendar right now: confirmed events and live
 * holds, judged at one instant of the database clock. Must always be empty.
 */
export async function overlappingBusy(workspaceId: string): Promise<{ a: string; b: string; calendar_id: string }[]> {
  const db = await getDb();
  const { rows } = await db.execute<{ a: string; b: string; calendar_id: string }>(sql`
    with t as (select clock_timestamp() as now),
    busy as (
      select e.calendar_id, e.span, 'event:' || e.id as who
        from calendar_events e where e.status = 'confirmed' and e.workspace_id = ${workspaceId}
      union all
      select c.cal, tstzrange(h.start_time, h.end_time, '[)'), 'hold:' || h.id
        from holds h cross join unnest(h.calendar_ids) as c(cal) cross join t
        where h.status = 'held' and h.expires_at > t.now and h.workspace_id = ${workspaceId}
    )
    select a.who as a, b.who as b, a.calendar_id
      from busy a join busy b on a.calendar_id = b.calendar_id and a.who < b.who and a.span && b.span`);
  return rows;
}
