import { and, desc, eq, gt, lt, sql, type SQL } from "drizzle-orm";
import { transaction, queryable } from "../../db/transaction";
import { calendarEvents, type CalendarEventRow } from "../../db/schema";
import { AppError, notFound } from "../errors";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { emitEvent } from "../events/emit-event";
import { page, type Pagination } from "../api/pagination";
import { lockCalendars } from "./lock-calendars";
import { getCalendar } from "./calendars";
import { serializeCalendarEvent } from "./serialize";
import { queueExportRemoval } from "../google/export-event";

/** A calendar's events; an agent-bound viewer sees only its own agent's (availability shows the others' busy time). */
export async function listEvents(
  viewer: { workspaceId: string; agentId: string | null },
  calendarId: string,
  f: Pagination & { from?: string; to?: string; status?: "confirmed" | "cancelled" },
) {
  const { workspaceId } = viewer;
  await getCalendar(workspaceId, calendarId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(calendarEvents.workspaceId, workspaceId), eq(calendarEvents.calendarId, calendarId)];
  if (viewer.agentId) where.push(eq(calendarEvents.agentId, viewer.agentId));
  if (f.status) where.push(eq(calendarEvents.status, f.status));
  if (f.from) where.push(gt(calendarEvents.endTime, new Date(f.from)));
  if (f.to) where.push(lt(calendarEvents.startTime, new Date(f.to)));
  if (f.starting_after) where.push(lt(calendarEvents.id, f.starting_after));
  const rows = await q.select().from(calendarEvents).where(and(...where)).orderBy(desc(calendarEvents.id)).limit(f.limit + 1);
  return page(rows, f.limit);
}

/** Cancels a committed event, freeing its time. Cancelling twice returns it unchanged. */
export async function cancelEvent(actor: Actor, eventId: string): Promise<CalendarEventRow> {
  return transaction(async (tx) => {
    const mine = and(eq(calendarEvents.id, eventId), eq(calendarEvents.workspaceId, actor.workspaceId));
    const [peek] = await tx.select().from(calendarEvents).where(mine);
    if (!peek) throw notFound("event", eventId);
    if (actor.type === "key" && actor.agentId && peek.agentId !== actor.agentId) {
      throw new AppError("forbidden", "Only the event's own agent, or a workspace-wide key, may cancel it.");
    }
    await lockCalendars(tx, actor.workspaceId, [peek.calendarId]);
    const [event] = await tx.select().from(calendarEvents).where(mine).for("update");
    if (event!.status === "cancelled") return event!;
    const [cancelled] = await tx
      .update(calendarEvents)
      .set({ status: "cancelled", cancelledAt: sql`clock_timestamp()` })
      .where(eq(calendarEvents.id, eventId))
      .returning();
    await queueExportRemoval(tx, eventId);
    await emitEvent(tx, actor, { type: "event.cancelled", agentId: cancelled!.agentId, data: { event: serializeCalendarEvent(cancelled!) } });
    await appendAudit(tx, [
      { actor, action: "event.cancelled", resource: { type: "event", id: eventId }, agentId: cancelled!.agentId, summary: { calendar_id: cancelled!.calendarId } },
    ]);
    return cancelled!;
  });
}
