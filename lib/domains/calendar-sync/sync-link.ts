import { and, eq, inArray, isNull, lte, lt, or, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { queryable, transaction } from "../../../db/transaction";
import { externalBusyIntervals, googleCalendarLinks, googleConnections, type GoogleCalendarLinkRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { lockCalendars } from "../calendars";
import { queueNotifications } from "../notifications";
import type { CalendarProvider, FetchedChanges, ImportedEvent } from "./provider";
import { loadProvider } from "./providers";
import { scheduleSync } from "./schedule-sync";
import { exportsMatching, reconcileExports, type ExportMatch } from "./reconcile";
import { markConnectionBroken } from "./watch";
import { requestDriftCheck } from "./drift-source";

const LEASE_SECONDS = 120;

export type SyncResult = { linkId: string; full: boolean; upserted: number; removed: number; reconciled?: number; status: "ok" | "failed"; error?: string };

const systemActor = (provider: CalendarProvider, workspaceId: string): Actor => ({ type: "system", workspaceId, job: provider.syncKind });

/** Claims a link for one sync (a lease), so concurrent runs of the job never sync one link twice at once. */
async function claimLink(linkId: string): Promise<GoogleCalendarLinkRow | null> {
  const q = await queryable();
  const [row] = await q
    .update(googleCalendarLinks)
    .set({ leasedUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
    .where(and(eq(googleCalendarLinks.id, linkId), or(isNull(googleCalendarLinks.leasedUntil), lt(googleCalendarLinks.leasedUntil, sql`now()`))))
    .returning();
  return row ?? null;
}

/**
 * Of the fetched events tagged as AgentDraft's, the ids this link really exported (our export
 * rows for this calendar, by the event id in the tag and the remote id). The tag alone proves
 * nothing: anyone who can write to the calendar can set it to hide real busy time. A provider
 * whose change feed shows no tags (`exportTag` undefined) is matched on the remote id alone.
 */
function exportedByLink(items: ImportedEvent[], exports: ExportMatch[]): Set<string> {
  const ours = new Map(exports.map((r) => [r.googleEventId, r.calendarEventId]));
  return new Set(items.filter((ev) => ev.exportTag !== null && ours.has(ev.id) && (ev.exportTag === undefined || ours.get(ev.id) === ev.exportTag)).map((ev) => ev.id));
}

/** Writes the fetched changes under the calendar's row lock: holds placed meanwhile queue behind it. */
async function applyChanges(tx: Transaction, provider: CalendarProvider, link: GoogleCalendarLinkRow, fetched: FetchedChanges, exports: ExportMatch[]): Promise<{ upserted: number; removed: number }> {
  // The last word on each event wins (a page may list an event once, but be safe).
  const latest = new Map<string, { start: Date; end: Date } | null>();
  const ownExports = exportedByLink(fetched.items, exports);
  for (const ev of fetched.items) latest.set(ev.id, ownExports.has(ev.id) ? null : ev.busy);
  const busy = new Map([...latest].filter((e): e is [string, { start: Date; end: Date }] => e[1] !== null));
  const gone = [...latest].filter(([, iv]) => iv === null).map(([id]) => id);
  let removed = 0;
  if (fetched.full) {
    // A full sync replaces the set: whatever the provider no longer lists is no longer busy.
    const keep = [...busy.keys()];
    const deleted = await tx
      .delete(externalBusyIntervals)
      .where(and(eq(externalBusyIntervals.linkId, link.id), keep.length ? sql`${externalBusyIntervals.googleEventId} <> all(${sql.param(keep)}::text[])` : undefined))
      .returning({ id: externalBusyIntervals.id });
    removed = deleted.length;
  } else if (gone.length) {
    const deleted = await tx
      .delete(externalBusyIntervals)
      .where(and(eq(externalBusyIntervals.linkId, link.id), inArray(externalBusyIntervals.googleEventId, gone)))
      .returning({ id: externalBusyIntervals.id });
    removed = deleted.length;
  }
  const rows = [...busy.entries()].map(([googleEventId, iv]) => ({
    id: newId("googleBusy"),
    workspaceId: link.workspaceId,
    calendarId: link.calendarId,
    linkId: link.id,
    googleEventId,
    source: provider.id,
    startTime: iv.start,
    endTime: iv.end,
    importedAt: sql`clock_timestamp()`,
  }));
  let upserted = 0;
  for (let i = 0; i < rows.length; i += 500) {
    const changed = await tx
      .insert(externalBusyIntervals)
      .values(rows.slice(i, i + 500))
      .onConflictDoUpdate({
        target: [externalBusyIntervals.linkId, externalBusyIntervals.googleEventId],
        set: { startTime: sql`excluded.start_time`, endTime: sql`excluded.end_time`, importedAt: sql`clock_timestamp()` },
        // An unchanged span stays as it was (and keeps when it became busy).
        setWhere: sql`(${externalBusyIntervals.startTime}, ${externalBusyIntervals.endTime}) is distinct from (excluded.start_time, excluded.end_time)`,
      })
      .returning({ id: externalBusyIntervals.id });
    upserted += changed.length;
  }
  return { upserted, removed };
}

/** The next periodic resync after `failures` failures in a row: the interval, or sooner backoff while failing. */
function nextSyncDelaySeconds(provider: CalendarProvider, failures: number): number {
  const interval = provider.syncIntervalSeconds();
  return failures === 0 ? interval : Math.min(interval, 15 * 2 ** Math.min(failures - 1, 10));
}

async function recordFailure(provider: CalendarProvider, link: GoogleCalendarLinkRow, message: string): Promise<void> {
  await transaction(async (tx) => {
    const [before] = await tx.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)).for("update");
    if (!before) return;
    const failures = before.syncFailures + 1;
    await tx
      .update(googleCalendarLinks)
      .set({
        syncStatus: "failed",
        lastSyncError: message,
        syncFailures: failures,
        nextSyncAt: sql`now() + make_interval(secs => ${nextSyncDelaySeconds(provider, failures)})`,
        leasedUntil: null,
        updatedAt: sql`now()`,
      })
      .where(eq(googleCalendarLinks.id, link.id));
    // Said once when a link starts failing (and again if it recovers and fails anew), not on every retry.
    if (before.syncStatus !== "failed") {
      const actor = systemActor(provider, link.workspaceId);
      await emitEvent(tx, actor, {
        type: "calendar.sync_failed",
        data: { calendar_id: link.calendarId, link_id: link.id, [`${provider.id}_calendar_id`]: link.googleCalendarId, direction: "import", error: message },
      });
      await queueNotifications(tx, { workspaceId: link.workspaceId, type: "calendar.sync_failed", subject: link.id });
      await appendAudit(tx, [
        { actor, action: "calendar.sync_failed", resource: { type: "calendar", id: link.calendarId }, outcome: "failed", summary: { link_id: link.id, direction: "import", error: message } },
      ]);
    }
  });
}

/**
 * Imports a linked calendar's busy time: a full sync the first time (and whenever the provider
 * says the sync token / delta link is no longer valid), then incremental syncs from the stored
 * token. Safe to run concurrently with itself (a lease admits one run per link; the rest return
 * null). Failures are recorded on the link, retried with backoff, and announced once
 * (calendar.sync_failed webhook and audit entry).
 */
export async function syncLink(linkId: string): Promise<SyncResult | null> {
  const link = await claimLink(linkId);
  if (!link) return null;
  const q = await queryable();
  const [connection] = await q.select().from(googleConnections).where(eq(googleConnections.id, link.connectionId));
  const provider = await loadProvider(connection?.provider ?? "google");
  if (!connection || connection.status !== "active") {
    const message = `The ${provider.brand} connection needs to be reconnected.`;
    await recordFailure(provider, link, message);
    return { linkId, full: false, upserted: 0, removed: 0, status: "failed", error: message };
  }
  let fetched: FetchedChanges;
  try {
    try {
      fetched = await provider.fetchChanges(connection, link, link.syncToken);
    } catch (err) {
      if (!link.syncToken || !provider.isSyncTokenInvalid(err)) throw err;
      // The sync token expired at the provider (Google's 410 Gone, Graph's syncStateNotFound): start over with a full sync.
      fetched = await provider.fetchChanges(connection, link, null);
    }
  } catch (err) {
    const message = provider.describe(err);
    if (provider.isRevokedGrant(err)) await markConnectionBroken(provider, connection.id, message);
    await recordFailure(provider, link, message);
    return { linkId, full: !link.syncToken, upserted: 0, removed: 0, status: "failed", error: message };
  }

  const counts = await transaction(async (tx) => {
    await lockCalendars(tx, link.workspaceId, [link.calendarId]);
    const [current] = await tx.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)).for("update");
    if (!current) return null; // unlinked meanwhile: its busy time is already gone
    // One read of the export rows the fetched events may be copies of, for the import and the reconciliation.
    const exports = await exportsMatching(tx, link, fetched.items.map((ev) => ev.id));
    const changes = await applyChanges(tx, provider, link, fetched, exports);
    // A person's changes to events AgentDraft exported, seen in the same changes (issue #32).
    const reconciled = await reconcileExports(tx, provider, link, fetched.items, systemActor(provider, link.workspaceId), exports);
    await tx
      .update(googleCalendarLinks)
      .set({
        syncToken: fetched.nextSyncToken,
        syncStatus: "ok",
        lastSyncError: null,
        syncFailures: 0,
        lastSyncedAt: sql`now()`,
        nextSyncAt: sql`now() + make_interval(secs => ${nextSyncDelaySeconds(provider, 0)})`,
        leasedUntil: null,
        updatedAt: sql`now()`,
      })
      .where(eq(googleCalendarLinks.id, link.id));
    // A full resync (the change feed may have skipped changes) or a recovery after failures (an
    // outage): the link's drift check compares every export with the provider now (issue #32).
    if (fetched.full || current.syncStatus === "failed") await requestDriftCheck(tx, link);
    // Announced when something changed here, on the first sync, and on recovery; quiet resyncs stay quiet.
    if (changes.upserted || changes.removed || current.syncStatus !== "ok") {
      const actor = systemActor(provider, link.workspaceId);
      const summary = { link_id: link.id, [`${provider.id}_calendar_id`]: link.googleCalendarId, full: fetched.full, busy_upserted: changes.upserted, busy_removed: changes.removed };
      await emitEvent(tx, actor, { type: "calendar.synced", data: { calendar_id: link.calendarId, ...summary } });
      await appendAudit(tx, [{ actor, action: "calendar.synced", resource: { type: "calendar", id: link.calendarId }, summary }]);
    }
    return { ...changes, reconciled };
  });
  if (!counts) return null;
  return { linkId, full: fetched.full, ...counts, status: "ok" };
}

export { scheduleSync };

/** One unit of work: syncs one link if it is due, and says when it is due next (the periodic resync or a retry). */
export async function syncLinkWork(linkId: string): Promise<{ status: string; retryAt: Date | null }> {
  const result = await syncLink(linkId);
  const q = await queryable();
  const [link] = await q.select({ nextSyncAt: googleCalendarLinks.nextSyncAt }).from(googleCalendarLinks).where(eq(googleCalendarLinks.id, linkId));
  return { status: result?.status ?? "skipped", retryAt: link?.nextSyncAt ?? null };
}

/**
 * Syncs every link of the provider that is due now (tests and the CLI; in the server each link is
 * its own run). `workspaceId` keeps to one workspace's links (tests share one database).
 */
export async function syncDueLinks(provider: CalendarProvider, limit = 25, opts: { workspaceId?: string } = {}): Promise<number> {
  if (!provider.configured()) return 0;
  const q = await queryable();
  const due = await q
    .select({ id: googleCalendarLinks.id })
    .from(googleCalendarLinks)
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(
      and(
        lte(googleCalendarLinks.nextSyncAt, sql`now()`),
        or(isNull(googleCalendarLinks.leasedUntil), lt(googleCalendarLinks.leasedUntil, sql`now()`)),
        inArray(googleConnections.status, ["active", "error"]),
        eq(googleConnections.provider, provider.id),
        opts.workspaceId ? eq(googleCalendarLinks.workspaceId, opts.workspaceId) : undefined,
      ),
    )
    .orderBy(googleCalendarLinks.nextSyncAt)
    .limit(limit);
  let synced = 0;
  for (const { id } of due) if ((await syncLink(id))?.status === "ok") synced++;
  return synced;
}
