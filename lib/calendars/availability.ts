import { and, eq, sql } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { calendarEvents, externalBusyIntervals, holds } from "../../db/schema";
import { isLive, overlaps } from "../holds/live";
import { getCalendar } from "./calendars";

type Interval = { start: number; end: number };

/** Free/busy for [from, to): confirmed events, imported Google busy time and live holds are busy; the rest is free. */
export async function availability(workspaceId: string, calendarId: string, from: Date, to: Date) {
  await getCalendar(workspaceId, calendarId);
  const q = await queryable();
  const range = sql`tstzrange(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz, '[)')`;
  const events = await q
    .select()
    .from(calendarEvents)
    .where(and(eq(calendarEvents.calendarId, calendarId), eq(calendarEvents.status, "confirmed"), sql`${calendarEvents.span} && ${range}`));
  const external = await q
    .select()
    .from(externalBusyIntervals)
    .where(and(eq(externalBusyIntervals.calendarId, calendarId), sql`${externalBusyIntervals.span} && ${range}`));
  const live = await q
    .select()
    .from(holds)
    .where(and(eq(holds.workspaceId, workspaceId), sql`${holds.calendarIds} @> array[${calendarId}]::text[]`, isLive, overlaps(from, to)));

  const busy = [
    ...events.map((e) => ({ start_time: e.startTime, end_time: e.endTime, kind: "event" as const, id: e.id, priority: null, expires_at: null })),
    ...external.map((b) => ({ start_time: b.startTime, end_time: b.endTime, kind: "external_busy" as const, id: b.id, priority: null, expires_at: null })),
    ...live.map((h) => ({ start_time: h.startTime, end_time: h.endTime, kind: "hold" as const, id: h.id, priority: h.priority, expires_at: h.expiresAt.toISOString() })),
  ].sort((a, b) => a.start_time.getTime() - b.start_time.getTime());

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
