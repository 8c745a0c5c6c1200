import { and, desc, eq, gt, isNotNull, lt, ne, sql, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { calendarEvents, eventReconciliations, type CalendarEventRow, type EventReconciliationRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { scheduleExportWork } from "../../platform/events/export-outbox";
import { page, type Pagination } from "../../platform/api/pagination";
import { getCalendar } from "./calendars";

/** A calendar's events; an agent-bound viewer sees only its own agent's (availability shows the others' busy time). */
export async function listEvents(
  viewer: { workspaceId: string; agentId: string | null },
  calendarId: string,
  f: Pagination & { from?: string; to?: string; status?: "confirmed" | "cancelled"; attention?: "true" },
): Promise<{ items: { event: CalendarEventRow; reconciliation: EventReconciliationRow | null }[]; hasMore: boolean }> {
  const { workspaceId } = viewer;
  await getCalendar(workspaceId, calendarId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(calendarEvents.workspaceId, workspaceId), eq(calendarEvents.calendarId, calendarId)];
  if (viewer.agentId) where.push(eq(calendarEvents.agentId, viewer.agentId));
  if (f.status) where.push(eq(calendarEvents.status, f.status));
  if (f.from) where.push(gt(calendarEvents.endTime, new Date(f.from)));
  if (f.to) where.push(lt(calendarEvents.startTime, new Date(f.to)));
  if (f.starting_after) where.push(lt(calendarEvents.id, f.starting_after));
  // Needing attention: committed events a person moved, cancelled or double-booked in the linked calendar (issue #32).
  if (f.attention) where.push(eq(calendarEvents.status, "confirmed"), isNotNull(eventReconciliations.calendarEventId), ne(eventReconciliations.state, "in_sync"));
  const rows = await q
    .select({ event: calendarEvents, reconciliation: eventReconciliations })
    .from(calendarEvents)
    .leftJoin(eventReconciliations, eq(eventReconciliations.calendarEventId, calendarEvents.id))
    .where(and(...where))
    .orderBy(desc(calendarEvents.id))
    .limit(f.limit + 1);
  return page(rows, f.limit);
}

/**
 * Cancels a committed event, freeing its time, in one statement (agentdraft_cancel_event):
 * only its agent or a workspace-wide key (another agent's event is not found); under its calendar's lock; its Google copy queued for
 * removal, event.cancelled and the audit entry written with it. Cancelling twice returns it unchanged.
 */
export async function cancelEvent(actor: Actor, eventId: string): Promise<CalendarEventRow> {
  type Cancelled =
    | { event: Record<string, unknown>; exports: { id: string; workspace_id: string; link_id: string | null; next_attempt_at: string }[]; deliveries: OutboxDelivery[]; changed: boolean }
    | { error: { code: "not_found" | "forbidden" } };
  const q = await queryable();
  const { rows } = await q.execute<{ out: Cancelled | string }>(sql`select agentdraft_cancel_event(${JSON.stringify(actorJson(actor))}::jsonb, ${eventId}) as out`);
  const out = jsonValue<Cancelled>(rows[0]!.out);
  if ("error" in out) {
    // Another agent's event, to an agent-bound key, is not found: a 403 would confirm it exists.
    throw notFound("event", eventId);
  }
  if (out.changed) {
    await Promise.all([
      announceOutbox(actor.workspaceId, out.deliveries),
      scheduleExportWork(out.exports.map((x) => ({ id: x.id, workspaceId: x.workspace_id, key: x.link_id, dueAt: new Date(x.next_attempt_at) }))),
    ]);
  }
  return rowFromJson(calendarEvents, out.event);
}
