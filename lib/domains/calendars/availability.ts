import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { jsonValue } from "../../../db/row-json";
import { notFound } from "../../platform/errors";
import { isLive, overlaps } from "../holds";

type Interval = { start: number; end: number };

type Busy = { start_time: string; end_time: string; kind: "event" | "external_busy" | "hold"; id: string; priority: number | null; expires_at: string | null };

/**
 * Free/busy for [from, to): confirmed events, imported Google busy time and live holds are busy;
 * the rest is free. One statement reads the calendar's existence and only the busy columns.
 */
export async function availability(workspaceId: string, calendarId: string, from: Date, to: Date) {
  const q = await queryable();
  const range = sql`tstzrange(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz, '[)')`;
  const { rows } = await q.execute<{ found: boolean; busy: Busy[] | string }>(sql`
    select exists (select 1 from calendars where id = ${calendarId} and workspace_id = ${workspaceId}) as found,
      coalesce((select jsonb_agg(jsonb_build_object('start_time', b.start_time, 'end_time', b.end_time, 'kind', b.kind, 'id', b.id,
                 'priority', b.priority, 'expires_at', b.expires_at) order by b.start_time, b.id)
        from (
          select e.start_time, e.end_time, 'event' as kind, e.id, null::int as priority, null::timestamptz as expires_at
            from calendar_events e where e.calendar_id = ${calendarId} and e.status = 'confirmed' and e.span && ${range}
          union all
          select x.start_time, x.end_time, 'external_busy', x.id, null, null
            from external_busy_intervals x where x.calendar_id = ${calendarId} and x.span && ${range}
          union all
          select holds.start_time, holds.end_time, 'hold', holds.id, holds.priority, holds.expires_at
            from holds where holds.workspace_id = ${workspaceId} and holds.calendar_ids @> array[${calendarId}]::text[] and ${isLive} and ${overlaps(from, to)}
        ) b), '[]'::jsonb) as busy`);
  if (!rows[0]?.found) throw notFound("calendar", calendarId);
  const busy = jsonValue<Busy[]>(rows[0].busy).map((b) => ({
    ...b,
    start_time: new Date(b.start_time),
    end_time: new Date(b.end_time),
    expires_at: b.expires_at === null ? null : new Date(b.expires_at).toISOString(),
  }));

  // Merge busy intervals, clipped to the window; the gaps are free.
  const merged: Interval[] = [];
  for (const b of busy) {
    const iv = { start: Math.max(b.start_time.getTime(), from.getTime()), end: Math.min(b.end_time.getTime(), to.getTime()) };
    const last = merged.at(-1);
    if (last && iv.start <= last.end) last.end = Math.max(last.end, iv.end);
    else merged.push(iv);
  }
  const free: Interval[] = [];
  let cursor = from.getTime();
  for (const m of merged) {
    if (m.start > cursor) free.push({ start: cursor, end: m.start });
    cursor = Math.max(cursor, m.end);
  }
  if (cursor < to.getTime()) free.push({ start: cursor, end: to.getTime() });

  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    object: "availability" as const,
    calendar_id: calendarId,
    from: from.toISOString(),
    to: to.toISOString(),
    busy: busy.map((b) => ({ ...b, start_time: b.start_time.toISOString(), end_time: b.end_time.toISOString() })),
    free: free.map((f) => ({ start_time: iso(f.start), end_time: iso(f.end) })),
  };
}
