import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import {
  calendarEvents,
  eventReconciliations,
  externalBusyIntervals,
  googleCalendarLinks,
  googleEventExports,
  type CalendarEventRow,
  type EventReconciliationRow,
  type GoogleCalendarLinkRow,
  type GoogleEventExportRow,
  type ReconciliationConflict,
  type ReconciliationState,
} from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { reconciliationJson } from "../calendars";
import { queueNotifications } from "../notifications";
import type { CalendarProvider, ImportedEvent, RemoteVersion } from "./provider";

/** At most this many events are re-checked in one sync (a page of changes touches a few; the rest wait for the next sync). */
const MAX_CHECKED = 500;

type Observed = { status: RemoteVersion["status"]; start: Date | null; end: Date | null; updatedAt: Date | null; changedBy: string | null };

const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
const conflictKey = (c: ReconciliationConflict) => (c.kind === "event" ? `event:${c.id}` : `busy:${c.link_id}:${c.provider_event_id}`);

/**
 * Reconciliation after commit (issue #32), run by the import sync inside its transaction, under
 * the calendar's lock, with the changes it fetched. Looks at the committed events this link
 * exported that the provider reported (moved, shortened, deleted, cancelled, declined by all
 * attendees), at the exported events a changed provider event now overlaps, and at the events
 * already needing attention (whose conflicts may have gone). For each, records the provider's
 * version beside AgentDraft's and what overlaps it now, and announces a change once: the same
 * provider version and the same conflicts seen again write nothing. Nothing is moved back.
 * Returns how many changes it recorded.
 */
export async function reconcileExports(tx: Transaction, provider: CalendarProvider, link: GoogleCalendarLinkRow, items: ImportedEvent[], actor: Actor, exports?: ExportMatch[]): Promise<number> {
  // The last word on each provider event wins.
  const latest = new Map<string, ImportedEvent>();
  for (const ev of items) latest.set(ev.id, ev);

  // Exported events the provider reported: matched by the remote id AgentDraft made (or Graph
  // gave it), which a deleted event's entry still carries when its tag is gone. The sync passes
  // the export rows it already read for these ids (one read per sync).
  const matches = exports ?? (await exportsMatching(tx, link, [...latest.keys()]));
  const reported = matches
    .filter((r) => r.desired === "present" && r.status === "exported" && latest.has(r.googleEventId))
    .map((r) => ({ eventId: r.calendarEventId, remoteId: r.googleEventId }));
  const remoteOf = new Map(reported.map((r) => [r.eventId, r.remoteId]));

  // Exported events a changed provider event now overlaps (a person double-booked over them).
  const ours = new Set(reported.map((r) => r.remoteId));
  const spans = [...latest.values()].filter((ev) => ev.busy && !ours.has(ev.id)).map((ev) => ev.busy!);
  const overlapped = spans.length
    ? await tx
        .select({ eventId: calendarEvents.id, remoteId: googleEventExports.googleEventId })
        .from(calendarEvents)
        .innerJoin(googleEventExports, eq(googleEventExports.calendarEventId, calendarEvents.id))
        .where(
          and(
            eq(calendarEvents.workspaceId, link.workspaceId),
            eq(calendarEvents.calendarId, link.calendarId),
            eq(calendarEvents.status, "confirmed"),
            eq(googleEventExports.googleCalendarId, link.googleCalendarId),
            eq(googleEventExports.desired, "present"),
            sql`${calendarEvents.span} && any(${sql.param(spans.map((s) => `[${s.start.toISOString()},${s.end.toISOString()})`))}::tstzrange[])`,
          ),
        )
        .limit(MAX_CHECKED)
    : [];
  for (const r of overlapped) if (!remoteOf.has(r.eventId)) remoteOf.set(r.eventId, r.remoteId);

  // Events already needing attention on this calendar: what overlapped them may have moved or gone.
  const open = await tx
    .select()
    .from(eventReconciliations)
    .where(and(eq(eventReconciliations.workspaceId, link.workspaceId), eq(eventReconciliations.calendarId, link.calendarId), eq(eventReconciliations.linkId, link.id), ne(eventReconciliations.state, "in_sync")))
    .limit(MAX_CHECKED);
  for (const r of open) if (!remoteOf.has(r.calendarEventId)) remoteOf.set(r.calendarEventId, r.providerEventId);
  if (!remoteOf.size) return 0;

  const ids = [...remoteOf.keys()].slice(0, MAX_CHECKED);
  const events = await tx.select().from(calendarEvents).where(and(inArray(calendarEvents.id, ids), eq(calendarEvents.status, "confirmed")));
  const recorded = new Map(
    (await tx.select().from(eventReconciliations).where(inArray(eventReconciliations.calendarEventId, ids))).map((r) => [r.calendarEventId, r]),
  );
  const calendarIds = await linkedCalendarIds(tx, link);
  let changes = 0;
  for (const event of events) {
    const remoteId = remoteOf.get(event.id)!;
    const before = recorded.get(event.id) ?? null;
    const seen = latest.get(remoteId)?.version;
    // Not reported by the provider this time: its version is the last one recorded, else AgentDraft's own.
    const observed: Observed = seen
      ? seen
      : before
        ? { status: before.providerStatus, start: before.providerStart, end: before.providerEnd, updatedAt: before.providerUpdatedAt, changedBy: before.providerChangedBy }
        : { status: "confirmed", start: event.startTime, end: event.endTime, updatedAt: null, changedBy: null };
    if (await recordObserved(tx, provider, link, actor, event, remoteId, before, observed, calendarIds)) changes++;
  }
  return changes;
}

/** An export row of a link's calendar, as the sync and the drift check match provider events against it. */
export type ExportMatch = Pick<GoogleEventExportRow, "id" | "calendarEventId" | "googleEventId" | "desired" | "status" | "updatedAt">;

/**
 * The export rows of the link's AgentDraft calendar to its remote calendar whose remote id is
 * one of `remoteIds` (whatever they want or their state): the one read of google_event_exports a
 * sync makes, shared by the busy-time import (which events are our own copies) and the
 * reconciliation (which exported events the provider reported).
 */
export async function exportsMatching(tx: Transaction, link: GoogleCalendarLinkRow, remoteIds: string[]): Promise<ExportMatch[]> {
  if (!remoteIds.length) return [];
  return tx
    .select({
      id: googleEventExports.id,
      calendarEventId: googleEventExports.calendarEventId,
      googleEventId: googleEventExports.googleEventId,
      desired: googleEventExports.desired,
      status: googleEventExports.status,
      updatedAt: googleEventExports.updatedAt,
    })
    .from(googleEventExports)
    .where(
      and(
        eq(googleEventExports.workspaceId, link.workspaceId),
        eq(googleEventExports.calendarId, link.calendarId),
        eq(googleEventExports.googleCalendarId, link.googleCalendarId),
        // One array parameter, however many events a full sync lists.
        sql`${googleEventExports.googleEventId} = any(${sql.param([...new Set(remoteIds)])}::text[])`,
      ),
    );
}

/** The AgentDraft calendars whose links read the same provider calendar (their commitments share its time). */
async function linkedCalendarIds(tx: Transaction, link: GoogleCalendarLinkRow): Promise<string[]> {
  const rows = await tx
    .select({ calendarId: googleCalendarLinks.calendarId })
    .from(googleCalendarLinks)
    .where(and(eq(googleCalendarLinks.workspaceId, link.workspaceId), eq(googleCalendarLinks.connectionId, link.connectionId), eq(googleCalendarLinks.googleCalendarId, link.googleCalendarId)));
  return [...new Set([link.calendarId, ...rows.map((r) => r.calendarId)])];
}

/** Every other commitment on the linked calendars overlapping [start, end): committed events and imported busy time. */
async function conflictsAt(tx: Transaction, workspaceId: string, eventId: string, calendarIds: string[], start: Date, end: Date): Promise<ReconciliationConflict[]> {
  const range = sql`tstzrange(${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz, '[)')`;
  const events = await tx
    .select({ id: calendarEvents.id, calendarId: calendarEvents.calendarId, start: calendarEvents.startTime, end: calendarEvents.endTime })
    .from(calendarEvents)
    .where(and(eq(calendarEvents.workspaceId, workspaceId), inArray(calendarEvents.calendarId, calendarIds), eq(calendarEvents.status, "confirmed"), ne(calendarEvents.id, eventId), sql`${calendarEvents.span} && ${range}`))
    .limit(50);
  const busy = await tx
    .select()
    .from(externalBusyIntervals)
    .where(and(eq(externalBusyIntervals.workspaceId, workspaceId), inArray(externalBusyIntervals.calendarId, calendarIds), sql`${externalBusyIntervals.span} && ${range}`))
    .limit(50);
  const out: ReconciliationConflict[] = [
    ...events.map((e) => ({ kind: "event" as const, id: e.id, calendar_id: e.calendarId, start_time: e.start.toISOString(), end_time: e.end.toISOString() })),
    ...busy.map((b) => ({
      kind: "external_busy" as const,
      provider: b.source,
      provider_event_id: b.googleEventId,
      calendar_id: b.calendarId,
      link_id: b.linkId,
      start_time: b.startTime.toISOString(),
      end_time: b.endTime.toISOString(),
    })),
  ];
  return out.sort((a, b) => a.start_time.localeCompare(b.start_time) || conflictKey(a).localeCompare(conflictKey(b)));
}

/** Compares what the provider now says (and what overlaps it) with what was recorded; writes and announces only a change. */
async function recordObserved(
  tx: Transaction,
  provider: CalendarProvider,
  link: GoogleCalendarLinkRow,
  actor: Actor,
  event: CalendarEventRow,
  remoteId: string,
  before: EventReconciliationRow | null,
  observed: Observed,
  calendarIds: string[],
): Promise<boolean> {
  const moved = observed.status === "confirmed" && !(sameTime(observed.start, event.startTime) && sameTime(observed.end, event.endTime));
  const conflicts =
    observed.status === "confirmed" && observed.start && observed.end && observed.end > observed.start
      ? await conflictsAt(tx, event.workspaceId, event.id, calendarIds, observed.start, observed.end)
      : [];
  const state: ReconciliationState = observed.status !== "confirmed" ? "cancelled_externally" : moved ? "moved_externally" : conflicts.length ? "conflicted" : "in_sync";
  // The version last recorded (AgentDraft's own when none was): what changed since.
  const prior = before
    ? { status: before.providerStatus, start: before.providerStart, end: before.providerEnd }
    : { status: "confirmed" as const, start: event.startTime, end: event.endTime };
  const changed: string[] = [];
  if (!sameTime(prior.start, observed.start)) changed.push("start");
  if (!sameTime(prior.end, observed.end)) changed.push("end");
  if (prior.status !== observed.status) changed.push("status");
  const priorKeys = new Set((before?.conflicts ?? []).map(conflictKey));
  const keys = new Set(conflicts.map(conflictKey));
  const newConflicts = conflicts.filter((c) => !priorKeys.has(conflictKey(c)));
  const conflictsChanged = priorKeys.size !== keys.size || newConflicts.length > 0;
  if (conflictsChanged) changed.push("conflicts");
  if (!changed.length) return false; // seen before: recorded once
  if (!before && state === "in_sync") return false;

  // What is announced: a change of the provider's version by its new state; else a new overlap.
  const versionChanged = changed.some((c) => c !== "conflicts");
  const type =
    versionChanged && state === "cancelled_externally"
      ? ("event.cancelled_externally" as const)
      : versionChanged && state === "moved_externally"
        ? ("event.moved_externally" as const)
        : newConflicts.length && state !== "cancelled_externally"
          ? ("event.conflicted" as const)
          : null;

  const values = {
    workspaceId: event.workspaceId,
    calendarId: event.calendarId,
    linkId: link.id,
    provider: provider.id,
    providerEventId: remoteId,
    state,
    providerStatus: observed.status,
    providerStart: observed.start,
    providerEnd: observed.end,
    changed,
    conflicts,
    providerUpdatedAt: observed.updatedAt,
    providerChangedBy: observed.changedBy,
  };
  const [row] = await tx
    .insert(eventReconciliations)
    .values({ calendarEventId: event.id, ...values, changes: 1, detectedAt: sql`now()`, updatedAt: sql`now()` })
    .onConflictDoUpdate({ target: eventReconciliations.calendarEventId, set: { ...values, changes: sql`${eventReconciliations.changes} + 1`, detectedAt: sql`now()`, updatedAt: sql`now()` } })
    .returning();
  const data = reconciliationJson(event, row!);
  if (type) {
    await emitEvent(tx, actor, { type, agentId: event.agentId, data: { event_id: event.id, calendar_id: event.calendarId, hold_id: event.holdId, agent_id: event.agentId, ...data, new_conflicts: newConflicts } });
    // And to the people: the workspace's notification channels that take this type (Slack, Teams, Discord).
    await queueNotifications(tx, { workspaceId: event.workspaceId, type, subject: event.id });
  }
  await appendAudit(tx, [
    {
      actor,
      action: type ?? (state === "in_sync" ? "event.back_in_sync" : "event.reconciliation_updated"),
      resource: { type: "event", id: event.id },
      summary: { link_id: link.id, provider: provider.id, provider_event_id: remoteId, state, changed, provider_status: observed.status, provider_start: observed.start?.toISOString() ?? null, provider_end: observed.end?.toISOString() ?? null, conflicts: conflicts.length },
    },
  ]);
  return true;
}
