import { and, asc, count, eq, ne } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { calendarEvents, calendars, eventReconciliations, type CalendarEventRow, type EventReconciliationRow } from "../../../db/schema";

/** At most this many events needing attention are shown on one calendar's page (the API pages through all of them). */
export const ATTENTION_SHOWN = 50;

/**
 * The committed events of a calendar a person moved, cancelled, declined or booked over in the
 * linked Google or Outlook calendar (issue #32), soonest first, with the provider's version beside
 * AgentDraft's: what the calendar page marks.
 */
export async function eventsNeedingAttention(workspaceId: string, calendarId: string, limit = ATTENTION_SHOWN): Promise<{ event: CalendarEventRow; reconciliation: EventReconciliationRow }[]> {
  const q = await queryable();
  return q
    .select({ event: calendarEvents, reconciliation: eventReconciliations })
    .from(eventReconciliations)
    .innerJoin(calendarEvents, eq(calendarEvents.id, eventReconciliations.calendarEventId))
    .where(
      and(
        eq(eventReconciliations.workspaceId, workspaceId),
        eq(eventReconciliations.calendarId, calendarId),
        ne(eventReconciliations.state, "in_sync"),
        eq(calendarEvents.workspaceId, workspaceId),
        eq(calendarEvents.status, "confirmed"),
      ),
    )
    .orderBy(asc(calendarEvents.startTime), asc(calendarEvents.id))
    .limit(Math.min(Math.max(limit, 1), ATTENTION_SHOWN));
}

/** How many committed events need attention in the workspace, per calendar (the overview's count); calendars with none are left out. */
export async function countEventsNeedingAttention(workspaceId: string): Promise<{ total: number; calendars: { id: string; name: string; count: number }[] }> {
  const q = await queryable();
  const rows = await q
    .select({ id: calendars.id, name: calendars.name, count: count() })
    .from(eventReconciliations)
    .innerJoin(calendarEvents, eq(calendarEvents.id, eventReconciliations.calendarEventId))
    .innerJoin(calendars, eq(calendars.id, eventReconciliations.calendarId))
    .where(and(eq(eventReconciliations.workspaceId, workspaceId), ne(eventReconciliations.state, "in_sync"), eq(calendarEvents.status, "confirmed"), eq(calendars.workspaceId, workspaceId)))
    .groupBy(calendars.id, calendars.name)
    .orderBy(asc(calendars.name), asc(calendars.id));
  const list = rows.map((r) => ({ id: r.id, name: r.name, count: Number(r.count) }));
  return { total: list.reduce((n, c) => n + c.count, 0), calendars: list };
}
