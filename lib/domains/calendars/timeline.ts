import { and, eq, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { calendarEvents, externalBusyIntervals, holds } from "../../../db/schema";
import { isLive, overlaps } from "../holds";
import { getCalendar } from "./calendars";

export type TimelineItem = {
  kind: "event" | "hold" | "external";
  id: string;
  agentId: string | null;
  start: Date;
  end: Date;
  priority: number | null;
  /** A live hold's expiry: it is tentative until then. */
  expiresAt: Date | null;
};

/** What occupies a calendar between two times: confirmed events, imported Google busy time and live holds, by start time. */
export async function calendarTimeline(workspaceId: string, calendarId: string, from: Date, to: Date) {
  const calendar = await getCalendar(workspaceId, calendarId);
  const q = await queryable();
  const range = sql`tstzrange(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz, '[)')`;
  const [events, external, live] = await Promise.all([
    q.select().from(calendarEvents).where(and(eq(calendarEvents.calendarId, calendarId), eq(calendarEvents.status, "confirmed"), sql`${calendarEvents.span} && ${range}`)),
    q.select().from(externalBusyIntervals).where(and(eq(externalBusyIntervals.calendarId, calendarId), sql`${externalBusyIntervals.span} && ${range}`)),
    q.select().from(holds).where(and(eq(holds.workspaceId, workspaceId), sql`${holds.calendarIds} @> array[${calendarId}]::text[]`, isLive, overlaps(from, to))),
  ]);
  const items: TimelineItem[] = [
    ...events.map((e) => ({ kind: "event" as const, id: e.id, agentId: e.agentId, start: e.startTime, end: e.endTime, priority: null, expiresAt: null })),
    ...external.map((b) => ({ kind: "external" as const, id: b.id, agentId: null, start: b.startTime, end: b.endTime, priority: null, expiresAt: null })),
    ...live.map((h) => ({ kind: "hold" as const, id: h.id, agentId: h.agentId, start: h.startTime, end: h.endTime, priority: h.priority, expiresAt: h.expiresAt })),
  ].sort((a, b) => a.start.getTime() - b.start.getTime());
  return { calendar, items };
}
