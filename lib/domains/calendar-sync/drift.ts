import { and, eq, gt, inArray, lt, lte, ne, or, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { queryable, transaction } from "../../../db/transaction";
import {
  calendarEvents,
  calendarOrphans,
  eventReconciliations,
  googleCalendarLinks,
  googleConnections,
  googleEventExports,
  type GoogleCalendarLinkRow,
  type GoogleEventExportRow,
  type OrphanAction,
} from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { scheduleExportWork } from "../../platform/events/export-outbox";
import { newId } from "../../platform/ids";
import { lockCalendars } from "../calendars";
import { DRIFT_INTERVAL_SECONDS, DRIFT_KIND, scheduleDriftCheck } from "./drift-source";
import type { CalendarProvider, ImportedEvent, ListedEvent, ListedWindow } from "./provider";
import { loadProvider } from "./providers";
import { reconcileExports, type ExportMatch } from "./reconcile";
import { markConnectionBroken } from "./watch";

/** A check claims its link this long (a crashed run is retried after it). */
const CLAIM_SECONDS = 600;
/** A failed listing is tried again after this long (the next sync's recovery also triggers a check). */
const RETRY_SECONDS = 900;
/** At most this many provider events are compared in one check; past it, nothing is called missing. */
export const MAX_LISTED = 5_000;
/** At most this many exported events absent from the window are asked for one by one in a check (the rest: the next check). */
const MAX_LOOKUPS = 50;

export type DriftResult = {
  linkId: string;
  status: "ok" | "failed" | "nothing_exported";
  listed: number;
  /** Exported events the provider lost: their exports queued again (re-created). */
  requeued: number;
  /** Exported events missing at a provider that keeps no deleted events: recorded as cancelled_externally. */
  missing: number;
  /** Moves and cancellations the change feed did not report, recorded now. */
  reconciled: number;
  /** Provider events tagged as AgentDraft's that AgentDraft does not stand behind, reported now (each once). */
  orphans: number;
  error?: string;
};

type ExportedRow = ExportMatch & Pick<GoogleEventExportRow, "holdId"> & { eventStatus: "confirmed" | "cancelled"; start: Date; end: Date };

const driftActor = (provider: CalendarProvider, workspaceId: string): Actor => ({ type: "system", workspaceId, job: DRIFT_KIND });

/** Claims a link's due check (or any, with `force`): its due time becomes the claim's end. Returns the link and the claim's mark. */
async function claim(linkId: string, force: boolean): Promise<{ link: GoogleCalendarLinkRow; mark: Date } | null> {
  const q = await queryable();
  const [row] = await q
    .update(googleCalendarLinks)
    .set({ driftCheckAt: sql`date_trunc('milliseconds', now()) + make_interval(secs => ${CLAIM_SECONDS})` })
    .where(and(eq(googleCalendarLinks.id, linkId), force ? undefined : lte(googleCalendarLinks.driftCheckAt, sql`now()`)))
    .returning();
  return row ? { link: row, mark: row.driftCheckAt! } : null;
}

/**
 * Ends a check: while the link has committed events ahead, the next check is due a day later;
 * else none is. A check asked for meanwhile (a full resync, a recovery) keeps its earlier time.
 */
async function finish(tx: Transaction | null, link: GoogleCalendarLinkRow, mark: Date, retryInSeconds?: number): Promise<void> {
  const q = tx ?? (await queryable());
  const ahead = sql`exists (select 1 from google_event_exports x join calendar_events e on e.id = x.calendar_event_id
    where x.link_id = ${link.id} and x.desired = 'present' and e.status = 'confirmed' and e.end_time > now())`;
  const next =
    retryInSeconds !== undefined
      ? sql`now() + make_interval(secs => ${retryInSeconds})`
      : sql`case when ${ahead} then now() + make_interval(secs => ${DRIFT_INTERVAL_SECONDS}) else null end`;
  const [row] = await q
    .update(googleCalendarLinks)
    .set({ driftCheckAt: next })
    .where(and(eq(googleCalendarLinks.id, link.id), eq(googleCalendarLinks.driftCheckAt, mark)))
    .returning({ driftCheckAt: googleCalendarLinks.driftCheckAt });
  if (row?.driftCheckAt) await scheduleDriftCheck(link, row.driftCheckAt);
}

/** The link's export rows (any state) of events ending after now, and those naming any of `remoteIds`, with their events. */
async function exportRows(q: Pick<Transaction, "select">, link: GoogleCalendarLinkRow, remoteIds: string[]): Promise<ExportedRow[]> {
  return q
    .select({
      id: googleEventExports.id,
      calendarEventId: googleEventExports.calendarEventId,
      googleEventId: googleEventExports.googleEventId,
      desired: googleEventExports.desired,
      status: googleEventExports.status,
      updatedAt: googleEventExports.updatedAt,
      holdId: googleEventExports.holdId,
      eventStatus: calendarEvents.status,
      start: calendarEvents.startTime,
      end: calendarEvents.endTime,
    })
    .from(googleEventExports)
    .innerJoin(calendarEvents, eq(calendarEvents.id, googleEventExports.calendarEventId))
    .where(
      and(
        eq(googleEventExports.workspaceId, link.workspaceId),
        eq(googleEventExports.linkId, link.id),
        eq(googleEventExports.googleCalendarId, link.googleCalendarId),
        remoteIds.length ? or(gt(calendarEvents.endTime, sql`now()`), sql`${googleEventExports.googleEventId} = any(${sql.param(remoteIds)}::text[])`) : gt(calendarEvents.endTime, sql`now()`),
      ),
    );
}

/**
 * Of `tags` (on listed events no export of this link explains), those naming another workspace's
 * export to this same provider calendar (a calendar linked from two workspaces): that workspace's
 * copies, which its own drift check answers for, never this one's orphans. By the export's event
 * id (its unique index); no query when there are none.
 */
async function copiesOfOtherWorkspaces(tx: Pick<Transaction, "select">, link: GoogleCalendarLinkRow, tags: string[]): Promise<Set<string>> {
  if (!tags.length) return new Set();
  const rows = await tx
    .select({ tag: googleEventExports.calendarEventId })
    .from(googleEventExports)
    .where(and(inArray(googleEventExports.calendarEventId, tags), eq(googleEventExports.googleCalendarId, link.googleCalendarId), ne(googleEventExports.workspaceId, link.workspaceId)));
  return new Set(rows.map((r) => r.tag));
}

/**
 * The drift check of one link (issue #32): lists the provider's events over the window of the
 * events AgentDraft exported there, and every event ending after now tagged as ours (wherever it
 * lies: an orphan outside the window), and compares. Run after a
 * full resync (a 410: the change feed may have skipped changes), after a recovery from failures
 * (an outage), and a day after the last check while the link has committed events ahead; never
 * for an idle link.
 *
 * - An exported event the provider shows moved, cancelled or declined: recorded as the sync's
 *   reconciliation records it (event.moved_externally / event.cancelled_externally, once).
 * - An exported event missing at the provider: at Google, which keeps deleted events (listed as
 *   cancelled), a missing one was lost, not deleted by a person: its export is queued again and
 *   re-creates it. Graph keeps no deleted events: a missing one cannot be told from a person's
 *   deletion, so it is recorded as cancelled_externally (nothing re-created over a deletion).
 * - A provider event tagged as AgentDraft's that AgentDraft does not stand behind (an orphan) is
 *   reported once (calendar_orphans, `calendar.orphan_found`, an audit entry). It is deleted only
 *   when provably ours and our record says it should not exist: its provider id is the one our
 *   export row of that very event recorded, its tag names that event, and the row says the copy
 *   was removed (desired absent, deleted): the removal is queued again. Anything else (a tag on
 *   an event we never exported there, a copy under another id) is only reported.
 *
 * Rows changed after the listing began, and exports still in flight, are left to the next check.
 */
export async function checkLinkDrift(linkId: string, opts: { force?: boolean } = {}): Promise<DriftResult | null> {
  const claimed = await claim(linkId, opts.force ?? false);
  if (!claimed) return null;
  const { link, mark } = claimed;
  const empty = { linkId, listed: 0, requeued: 0, missing: 0, reconciled: 0, orphans: 0 };
  const q = await queryable();
  const [connection] = await q.select().from(googleConnections).where(eq(googleConnections.id, link.connectionId));
  const provider = await loadProvider(connection?.provider ?? "google");
  if (!connection || connection.status !== "active" || !provider.configured()) {
    // A broken connection's recovery (its next good sync) asks for a check again.
    await q.update(googleCalendarLinks).set({ driftCheckAt: null }).where(and(eq(googleCalendarLinks.id, link.id), eq(googleCalendarLinks.driftCheckAt, mark)));
    return { ...empty, status: "failed", error: `The ${provider.brand} connection needs to be reconnected.` };
  }

  // The window: the events this link exported (or removed) that end after now.
  const before = await exportRows(q, link, []);
  if (!before.length) {
    await finish(null, link, mark);
    return { ...empty, status: "nothing_exported" };
  }
  const from = new Date(Math.min(...before.map((r) => r.start.getTime())));
  const to = new Date(Math.max(...before.map((r) => r.end.getTime())));

  const { rows: clock } = await q.execute<{ now: string | Date }>(sql`select clock_timestamp() as now`);
  const listedAt = new Date(clock[0]!.now);
  let listing: ListedWindow;
  let tagged: ListedWindow;
  try {
    listing = await provider.listWindow(connection, link, from, to, MAX_LISTED);
    // Tagged events outside the window (an orphan far ahead, a copy a person moved out): found by
    // the provider's filter on our tag or mark, so the cost is the tagged events, not the calendar.
    tagged = await provider.listTagged(connection, link, listedAt, MAX_LISTED);
  } catch (err) {
    const message = provider.describe(err);
    if (provider.isRevokedGrant(err)) await markConnectionBroken(provider, connection.id, message);
    await finish(null, link, mark, RETRY_SECONDS);
    return { ...empty, status: "failed", error: message };
  }
  const gone = new Set<string>();
  const listed = new Map<string, ListedEvent>(listing.items.map((ev) => [ev.id, ev]));
  for (const ev of tagged.items) if (!listed.has(ev.id)) listed.set(ev.id, ev);
  // An exported event in neither listing (gone, or a Google copy written before the mark that a
  // person moved out): asked for by its id, so a move is told from a loss (Google's 404) or a deletion.
  if (listing.complete) {
    const absent = before.filter((r) => r.desired === "present" && r.status === "exported" && r.eventStatus === "confirmed" && r.updatedAt < listedAt && !listed.has(r.googleEventId)).slice(0, MAX_LOOKUPS);
    try {
      for (const r of absent) {
        const found = await provider.getEvent(connection, link, r.googleEventId);
        if (found) listed.set(r.googleEventId, found);
        else gone.add(r.googleEventId);
      }
    } catch (err) {
      const message = provider.describe(err);
      if (provider.isRevokedGrant(err)) await markConnectionBroken(provider, connection.id, message);
      await finish(null, link, mark, RETRY_SECONDS);
      return { ...empty, status: "failed", error: message };
    }
  }

  return transaction(async (tx) => {
    await lockCalendars(tx, link.workspaceId, [link.calendarId]);
    const [current] = await tx.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)).for("update");
    if (!current) return { ...empty, status: "ok" as const, listed: listed.size }; // unlinked meanwhile
    const actor = driftActor(provider, link.workspaceId);
    const rows = await exportRows(tx, link, [...listed.keys()]);
    // Settled before the listing began: what the provider showed is comparable with them.
    const settled = rows.filter((r) => r.status !== "pending" && r.updatedAt < listedAt);
    const byRemote = new Map(rows.map((r) => [r.googleEventId, r]));
    const byEvent = new Map(rows.map((r) => [r.calendarEventId, r]));

    const live = settled.filter((r) => r.desired === "present" && r.status === "exported" && r.eventStatus === "confirmed" && r.end > new Date() && r.start < to);
    // Missing: the provider answered 404 for it (asked by id above).
    const missingRows = live.filter((r) => gone.has(r.googleEventId));
    const recorded = missingRows.length
      ? new Map(
          (await tx.select().from(eventReconciliations).where(inArray(eventReconciliations.calendarEventId, missingRows.map((r) => r.calendarEventId)))).map((r) => [r.calendarEventId, `${r.state}:${r.providerStatus}`]),
        )
      : new Map<string, string>();

    // What the provider showed of the exported events, as the sync's reconciliation reads it.
    const seen: ImportedEvent[] = live.filter((r) => listed.has(r.googleEventId)).map((r) => ({ id: r.googleEventId, busy: null, version: listed.get(r.googleEventId)!.version }));
    let requeued = 0;
    let missing = 0;
    const requeue: ExportedRow[] = [];
    for (const r of missingRows) {
      if (recorded.get(r.calendarEventId) === "cancelled_externally:cancelled") continue; // a person's deletion, seen already
      if (provider.listsDeleted) requeue.push(r);
      else {
        seen.push({ id: r.googleEventId, busy: null, version: { status: "cancelled", start: null, end: null, updatedAt: null, changedBy: null } });
        missing++;
      }
    }
    const reconciled = seen.length ? await reconcileExports(tx, provider, link, seen, actor, live) : 0;

    for (const r of requeue) {
      if (await requeueExport(tx, r, listedAt)) {
        requeued++;
        await appendAudit(tx, [
          {
            actor,
            action: "calendar.export_lost",
            resource: { type: "event", id: r.calendarEventId },
            summary: { link_id: link.id, provider: provider.id, provider_event_id: r.googleEventId, export_id: r.id, repair: "export queued again" },
          },
        ]);
      }
    }

    // Orphans: live provider events tagged as ours that no settled export of ours stands behind.
    const candidates = [...listed.values()].flatMap((ev) => (ev.exportTag === null || ev.version.status === "cancelled" ? [] : [{ ev, tag: ev.exportTag, mine: byRemote.get(ev.id), tagged: byEvent.get(ev.exportTag) }]));
    const othersCopies = await copiesOfOtherWorkspaces(tx, link, candidates.flatMap((c) => (c.mine || c.tagged ? [] : [c.tag])));
    let orphans = 0;
    for (const { ev, tag, mine, tagged } of candidates) {
      if (!mine && !tagged && othersCopies.has(tag)) continue; // another workspace's, on a calendar both link: its own check answers for it
      // In flight (an export or removal not settled before the listing): the next check sees it settled.
      if ((mine && (mine.status === "pending" || mine.updatedAt >= listedAt)) || (tagged && (tagged.status === "pending" || tagged.updatedAt >= listedAt))) continue;
      let verdict: { action: OrphanAction; reason: string } | null = null;
      if (mine && mine.desired === "present" && mine.eventStatus === "confirmed") continue; // ours, as recorded
      if (mine && mine.desired === "absent" && mine.status === "deleted" && mine.calendarEventId === tag) verdict = { action: "deleted", reason: "removed_by_agentdraft" };
      else if (mine) verdict = { action: "reported", reason: mine.desired === "absent" ? "removal_failed" : "event_not_confirmed" };
      else verdict = { action: "reported", reason: tagged ? "duplicate_copy" : "unknown_event" };
      const [orphan] = await tx
        .insert(calendarOrphans)
        .values({
          id: newId("calendarOrphan"),
          workspaceId: link.workspaceId,
          calendarId: link.calendarId,
          linkId: link.id,
          provider: provider.id,
          providerEventId: ev.id,
          taggedEventId: tag,
          providerStart: ev.version.start,
          providerEnd: ev.version.end,
          action: verdict.action,
          reason: verdict.reason,
          // AgentDraft removes a deleted one itself: nothing is left for a person.
          resolvedAt: verdict.action === "deleted" ? sql`now()` : null,
        })
        .onConflictDoNothing()
        .returning();
      // Reported once: the same provider event seen again writes nothing (nor deletes again).
      if (!orphan) continue;
      if (verdict.action === "deleted") await requeueExport(tx, mine!, listedAt);
      orphans++;
      const data = {
        calendar_id: link.calendarId,
        link_id: link.id,
        provider: provider.id,
        provider_event_id: ev.id,
        tagged_event_id: tag,
        start_time: ev.version.start?.toISOString() ?? null,
        end_time: ev.version.end?.toISOString() ?? null,
        action: verdict.action,
        reason: verdict.reason,
      };
      await emitEvent(tx, actor, { type: "calendar.orphan_found", data });
      await appendAudit(tx, [{ actor, action: "calendar.orphan_found", resource: { type: "calendar", id: link.calendarId }, summary: data }]);
    }

    await finish(tx, link, mark);
    return { linkId, status: "ok" as const, listed: listed.size, requeued, missing, reconciled, orphans };
  });
}

/**
 * Puts a settled export back to pending, due now, unless it changed since the listing began (a
 * re-booking moved it, a cancel or an export wrote it): the export job makes the provider match it again.
 */
async function requeueExport(tx: Transaction, row: ExportedRow, listedAt: Date): Promise<boolean> {
  const [updated] = await tx
    .update(googleEventExports)
    .set({ status: "pending", attempts: 0, nextAttemptAt: sql`now()`, lastError: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(googleEventExports.id, row.id),
        eq(googleEventExports.status, row.status),
        eq(googleEventExports.desired, row.desired),
        eq(googleEventExports.calendarEventId, row.calendarEventId),
        lt(googleEventExports.updatedAt, listedAt),
      ),
    )
    .returning();
  if (!updated) return false;
  await scheduleExportWork([{ id: updated.id, workspaceId: updated.workspaceId, key: updated.linkId, dueAt: new Date() }], tx);
  return true;
}

/** One unit of work: the link's drift check, if due. */
export async function checkDriftWork(linkId: string): Promise<{ status: string }> {
  const result = await checkLinkDrift(linkId);
  return { status: result?.status ?? "skipped", ...(result ?? {}) };
}
