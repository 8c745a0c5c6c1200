import { and, eq, inArray, isNull, lte, lt, or, sql } from "drizzle-orm";
import type { calendar_v3 } from "@googleapis/calendar";
import type { Transaction } from "../../db/client";
import { queryable, transaction } from "../../db/transaction";
import { externalBusyIntervals, googleCalendarLinks, googleConnections, googleEventExports, type GoogleCalendarLinkRow, type GoogleConnectionRow } from "../../db/schema";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { emitEvent } from "../events/emit-event";
import { env } from "../config/env";
import { lockCalendars } from "../calendars/lock-calendars";
import { googleConfig } from "./config";
import { calendarClient } from "./oauth-client";
import { callGoogle, googleFailure } from "./quota";
import { authorizedClient, isRevokedGrant, markConnectionBroken } from "./authorized-client";
import { busyInterval, EXPORT_EVENT_PROPERTY } from "./busy-interval";
import { scheduleWork } from "../jobs/schedule";
import { SYNC_KIND } from "./work-sources";
import { queueNotifications } from "../notifications/queue-notifications";

const LEASE_SECONDS = 120;
const PAGE_SIZE = 250;

export type SyncResult = { linkId: string; full: boolean; upserted: number; removed: number; status: "ok" | "failed"; error?: string };

const systemActor = (workspaceId: string): Actor => ({ type: "system", workspaceId, job: "google.sync" });

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

type Fetched = { full: boolean; items: calendar_v3.Schema$Event[]; nextSyncToken: string; timeZone: string };

/** Lists every page: all events (full sync), or what changed since the sync token (incremental). */
async function fetchChanges(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow, syncToken: string | null): Promise<Fetched> {
  const api = calendarClient(authorizedClient(connection));
  const items: calendar_v3.Schema$Event[] = [];
  let pageToken: string | undefined;
  for (;;) {
    const res = await callGoogle(connection.id, () =>
      api.events.list({
        calendarId: link.googleCalendarId,
        singleEvents: true,
        maxResults: PAGE_SIZE,
        ...(syncToken ? { syncToken } : { showDeleted: false }),
        ...(pageToken ? { pageToken } : {}),
      }),
    );
    items.push(...(res.data.items ?? []));
    if (res.data.nextPageToken) {
      pageToken = res.data.nextPageToken;
      continue;
    }
    if (!res.data.nextSyncToken) throw new Error("Google's last page carried no nextSyncToken.");
    return { full: !syncToken, items, nextSyncToken: res.data.nextSyncToken, timeZone: res.data.timeZone ?? "UTC" };
  }
}

/**
 * Of the fetched events tagged as AgentDraft's, the Google ids this link really exported (our
 * export rows for this Google calendar, by the event id in the tag and the id derived from it).
 */
async function exportedByLink(tx: Transaction, link: GoogleCalendarLinkRow, items: calendar_v3.Schema$Event[]): Promise<Set<string>> {
  const tagged = items.filter((ev) => ev.id && ev.extendedProperties?.private?.[EXPORT_EVENT_PROPERTY]);
  if (!tagged.length) return new Set();
  const rows = await tx
    .select({ calendarEventId: googleEventExports.calendarEventId, googleEventId: googleEventExports.googleEventId })
    .from(googleEventExports)
    .where(
      and(
        eq(googleEventExports.workspaceId, link.workspaceId),
        eq(googleEventExports.calendarId, link.calendarId),
        eq(googleEventExports.googleCalendarId, link.googleCalendarId),
        inArray(googleEventExports.googleEventId, tagged.map((ev) => ev.id!)),
      ),
    );
  const ours = new Map(rows.map((r) => [r.googleEventId, r.calendarEventId]));
  return new Set(tagged.filter((ev) => ours.get(ev.id!) === ev.extendedProperties!.private![EXPORT_EVENT_PROPERTY]).map((ev) => ev.id!));
}

/** Writes the fetched changes under the calendar's row lock: holds placed meanwhile queue behind it. */
async function applyChanges(tx: Transaction, link: GoogleCalendarLinkRow, fetched: Fetched): Promise<{ upserted: number; removed: number }> {
  // The last word on each event wins (a page may list an event once, but be safe).
  const latest = new Map<string, { start: Date; end: Date } | null>();
  const ownExports = await exportedByLink(tx, link, fetched.items);
  for (const ev of fetched.items) if (ev.id) latest.set(ev.id, busyInterval(ev, fetched.timeZone, ownExports));
  const busy = new Map([...latest].filter((e): e is [string, { start: Date; end: Date }] => e[1] !== null));
  const gone = [...latest].filter(([, iv]) => iv === null).map(([id]) => id);
  let removed = 0;
  if (fetched.full) {
    // A full sync replaces the set: whatever Google no longer lists is no longer busy.
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
function nextSyncDelaySeconds(failures: number): number {
  const interval = env().GOOGLE_SYNC_INTERVAL_SECONDS;
  return failures === 0 ? interval : Math.min(interval, 15 * 2 ** Math.min(failures - 1, 10));
}

async function recordFailure(link: GoogleCalendarLinkRow, message: string): Promise<void> {
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
        nextSyncAt: sql`now() + make_interval(secs => ${nextSyncDelaySeconds(failures)})`,
        leasedUntil: null,
        updatedAt: sql`now()`,
      })
      .where(eq(googleCalendarLinks.id, link.id));
    // Said once when a link starts failing (and again if it recovers and fails anew), not on every retry.
    if (before.syncStatus !== "failed") {
      const actor = systemActor(link.workspaceId);
      await emitEvent(tx, actor, {
        type: "calendar.sync_failed",
        data: { calendar_id: link.calendarId, link_id: link.id, google_calendar_id: link.googleCalendarId, direction: "import", error: message },
      });
      await queueNotifications(tx, { workspaceId: link.workspaceId, type: "calendar.sync_failed", subject: link.id });
      await appendAudit(tx, [
        { actor, action: "calendar.sync_failed", resource: { type: "calendar", id: link.calendarId }, outcome: "failed", summary: { link_id: link.id, direction: "import", error: message } },
      ]);
    }
  });
}

/**
 * Imports a linked Google calendar's busy time: a full sync the first time (and whenever Google
 * answers 410 Gone to the sync token), then incremental syncs from the stored sync token. Safe
 * to run concurrently with itself (a lease admits one run per link; the rest return null).
 * Failures are recorded on the link, retried with backoff, and announced once
 * (calendar.sync_failed webhook and audit entry).
 */
export async function syncLink(linkId: string): Promise<SyncResult | null> {
  const link = await claimLink(linkId);
  if (!link) return null;
  const q = await queryable();
  const [connection] = await q.select().from(googleConnections).where(eq(googleConnections.id, link.connectionId));
  if (!connection || connection.status !== "active") {
    const message = "The Google connection needs to be reconnected.";
    await recordFailure(link, message);
    return { linkId, full: false, upserted: 0, removed: 0, status: "failed", error: message };
  }
  let fetched: Fetched;
  try {
    try {
      fetched = await fetchChanges(connection, link, link.syncToken);
    } catch (err) {
      if (!link.syncToken || googleFailure(err).status !== 410) throw err;
      // The sync token expired at Google (410 Gone): start over with a full sync.
      fetched = await fetchChanges(connection, link, null);
    }
  } catch (err) {
    const f = googleFailure(err);
    if (isRevokedGrant(err)) await markConnectionBroken(connection.id, f.message);
    await recordFailure(link, f.message);
    return { linkId, full: !link.syncToken, upserted: 0, removed: 0, status: "failed", error: f.message };
  }

  const counts = await transaction(async (tx) => {
    await lockCalendars(tx, link.workspaceId, [link.calendarId]);
    const [current] = await tx.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)).for("update");
    if (!current) return null; // unlinked meanwhile: its busy time is already gone
    const changes = await applyChanges(tx, link, fetched);
    await tx
      .update(googleCalendarLinks)
      .set({
        syncToken: fetched.nextSyncToken,
        syncStatus: "ok",
        lastSyncError: null,
        syncFailures: 0,
        lastSyncedAt: sql`now()`,
        nextSyncAt: sql`now() + make_interval(secs => ${nextSyncDelaySeconds(0)})`,
        leasedUntil: null,
        updatedAt: sql`now()`,
      })
      .where(eq(googleCalendarLinks.id, link.id));
    // Announced when something changed here, on the first sync, and on recovery; quiet resyncs stay quiet.
    if (changes.upserted || changes.removed || current.syncStatus !== "ok") {
      const actor = systemActor(link.workspaceId);
      const summary = { link_id: link.id, google_calendar_id: link.googleCalendarId, full: fetched.full, busy_upserted: changes.upserted, busy_removed: changes.removed };
      await emitEvent(tx, actor, { type: "calendar.synced", data: { calendar_id: link.calendarId, ...summary } });
      await appendAudit(tx, [{ actor, action: "calendar.synced", resource: { type: "calendar", id: link.calendarId }, summary }]);
    }
    return changes;
  });
  if (!counts) return null;
  return { linkId, full: fetched.full, ...counts, status: "ok" };
}

/** After the transaction commits (or at once): sync this link now. */
export function scheduleSync(link: Pick<GoogleCalendarLinkRow, "id" | "workspaceId" | "connectionId">): void {
  scheduleWork(SYNC_KIND, [{ id: link.id, workspaceId: link.workspaceId, key: link.connectionId, dueAt: new Date() }]);
}

/** One unit of work: syncs one link if it is due, and says when it is due next (the periodic resync or a retry). */
export async function syncLinkWork(linkId: string): Promise<{ status: string; retryAt: Date | null }> {
  const result = await syncLink(linkId);
  const q = await queryable();
  const [link] = await q.select({ nextSyncAt: googleCalendarLinks.nextSyncAt }).from(googleCalendarLinks).where(eq(googleCalendarLinks.id, linkId));
  return { status: result?.status ?? "skipped", retryAt: link?.nextSyncAt ?? null };
}

/** Syncs every link that is due now (tests and the CLI; in the server each link is its own run). */
export async function syncDueLinks(limit = 25): Promise<number> {
  if (!googleConfig()) return 0;
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
      ),
    )
    .orderBy(googleCalendarLinks.nextSyncAt)
    .limit(limit);
  let synced = 0;
  for (const { id } of due) if ((await syncLink(id))?.status === "ok") synced++;
  return synced;
}
