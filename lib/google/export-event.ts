import { createHash } from "node:crypto";
import { and, desc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Transaction } from "../../db/client";
import { queryable, transaction } from "../../db/transaction";
import {
  calendarEvents,
  googleCalendarLinks,
  googleConnections,
  googleEventExports,
  type CalendarEventRow,
  type GoogleEventExportRow,
} from "../../db/schema";
import { AppError, notFound } from "../errors";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { emitEvent } from "../events/emit-event";
import { googleConfig } from "./config";
import { calendarClient } from "./oauth-client";
import { callGoogle, googleFailure } from "./quota";
import { authorizedClient, isRevokedGrant, markConnectionBroken } from "./authorized-client";
import { EXPORT_EVENT_PROPERTY, EXPORT_HOLD_PROPERTY } from "./busy-interval";
import { scheduleWork } from "../jobs/schedule";
import { EXPORT_KIND } from "./work-sources";
import { queueNotifications } from "../notifications/queue-notifications";

/** Attempts before an export is given up as `failed` (then shown in the web app, retried by hand). */
export const MAX_EXPORT_ATTEMPTS = 8;
const LEASE_SECONDS = 120;

/**
 * The Google event id for an AgentDraft event: derived from our id (base32hex, as Google
 * requires), so a second insert of the same event is refused by Google (409) instead of
 * creating a duplicate.
 */
export const googleEventIdFor = (calendarEventId: string) => `agentdraft${createHash("sha256").update(calendarEventId).digest("hex").slice(0, 40)}`;

/** Retry schedule of a failed export: 5 s, 15 s, 45 s... capped at an hour, ±20 % jitter. */
export function exportRetryDelaySeconds(attempts: number, random = Math.random): number {
  const base = Math.min(5 * 3 ** Math.max(attempts - 1, 0), 3600);
  return Math.round(base * (0.8 + random() * 0.4));
}

/**
 * Inside the commit's transaction: one pending export per committed event whose calendar is
 * linked to Google. It exists exactly when the commit does; the job does the Google call.
 */
export async function queueExports(tx: Transaction, events: CalendarEventRow[]): Promise<number> {
  if (!events.length) return 0;
  const links = await tx
    .select()
    .from(googleCalendarLinks)
    .where(inArray(googleCalendarLinks.calendarId, [...new Set(events.map((e) => e.calendarId))]));
  const byCalendar = new Map(links.map((l) => [l.calendarId, l]));
  const rows = events
    .filter((e) => byCalendar.has(e.calendarId))
    .map((e) => {
      const link = byCalendar.get(e.calendarId)!;
      return {
        id: newId("googleExport"),
        workspaceId: e.workspaceId,
        calendarEventId: e.id,
        calendarId: e.calendarId,
        holdId: e.holdId,
        linkId: link.id,
        googleCalendarId: link.googleCalendarId,
        googleEventId: googleEventIdFor(e.id),
        desired: "present" as const,
      };
    });
  if (!rows.length) return 0;
  const added = await tx.insert(googleEventExports).values(rows).onConflictDoNothing().returning();
  scheduleExports(added);
  return rows.length;
}

/** Inside the cancel's transaction: the event's Google copy is to be removed (if it was ever made). */
export async function queueExportRemoval(tx: Transaction, calendarEventId: string): Promise<void> {
  const rows = await tx
    .update(googleEventExports)
    .set({ desired: "absent", status: "pending", attempts: 0, nextAttemptAt: sql`now()`, lastError: null, updatedAt: sql`now()` })
    .where(eq(googleEventExports.calendarEventId, calendarEventId))
    .returning();
  scheduleExports(rows);
}

/** After the transaction commits: each export is its own run, keyed by its link (one Google calendar). */
function scheduleExports(rows: GoogleEventExportRow[]): void {
  scheduleWork(EXPORT_KIND, rows.map((r) => ({ id: r.id, workspaceId: r.workspaceId, key: r.linkId, dueAt: r.nextAttemptAt ?? new Date() })));
}

/** One unit of work: one export, claimed with a lease, pushed to Google, its outcome recorded. Returns when to retry. */
export async function runExport(exportId: string): Promise<{ ok: boolean; retryAt: Date | null } | null> {
  if (!googleConfig()) return null;
  const [row] = await claimDue(1, exportId);
  if (!row) return null;
  const outcome = await pushToGoogle(row);
  const recorded = await recordOutcome(row, outcome);
  return { ok: outcome.ok && recorded !== null, retryAt: recorded?.status === "pending" ? recorded.nextAttemptAt : null };
}

const exportActor = (workspaceId: string): Actor => ({ type: "system", workspaceId, job: "google.export" });

/** Claims due exports with a lease (SKIP LOCKED), so concurrent runners never take the same one. */
async function claimDue(limit: number, onlyId?: string): Promise<GoogleEventExportRow[]> {
  return transaction(async (tx) => {
    const due = await tx
      .select({ id: googleEventExports.id })
      .from(googleEventExports)
      .where(
        and(
          eq(googleEventExports.status, "pending"),
          lte(googleEventExports.nextAttemptAt, sql`now()`),
          or(isNull(googleEventExports.leasedUntil), lt(googleEventExports.leasedUntil, sql`now()`)),
          onlyId ? eq(googleEventExports.id, onlyId) : undefined,
        ),
      )
      .orderBy(googleEventExports.nextAttemptAt)
      .limit(limit)
      .for("update", { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(googleEventExports)
      .set({ leasedUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
      .where(inArray(googleEventExports.id, due.map((d) => d.id)))
      .returning();
  });
}

type Outcome = { ok: true; detail: "inserted" | "already_exported" | "deleted" | "already_gone" } | { ok: false; error: string; final?: boolean };

/** Makes Google match `desired` for one export. Never duplicates: look up by our tag first, insert with our deterministic id. */
async function pushToGoogle(row: GoogleEventExportRow): Promise<Outcome> {
  const q = await queryable();
  const [found] = row.linkId
    ? await q
        .select({ link: googleCalendarLinks, connection: googleConnections })
        .from(googleCalendarLinks)
        .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
        .where(eq(googleCalendarLinks.id, row.linkId))
    : [];
  if (!found || found.link.googleCalendarId !== row.googleCalendarId) {
    return { ok: false, error: "The calendar is no longer linked to this Google calendar.", final: true };
  }
  if (found.connection.status !== "active") return { ok: false, error: "The Google connection needs to be reconnected." };
  const api = calendarClient(authorizedClient(found.connection));
  const connectionId = found.connection.id;
  try {
    if (row.desired === "absent") {
      try {
        await callGoogle(connectionId, () => api.events.delete({ calendarId: row.googleCalendarId, eventId: row.googleEventId, sendUpdates: "none" }));
        return { ok: true, detail: "deleted" };
      } catch (err) {
        const status = googleFailure(err).status;
        if (status === 404 || status === 410) return { ok: true, detail: "already_gone" };
        throw err;
      }
    }
    const [event] = await q.select().from(calendarEvents).where(eq(calendarEvents.id, row.calendarEventId));
    if (!event) return { ok: false, error: "The event no longer exists.", final: true };
    // An earlier attempt may have reached Google and lost its answer: look for our tag first.
    const existing = await callGoogle(connectionId, () =>
      api.events.list({ calendarId: row.googleCalendarId, privateExtendedProperty: [`${EXPORT_EVENT_PROPERTY}=${event.id}`], showDeleted: true, maxResults: 1 }),
    );
    if (existing.data.items?.length) return { ok: true, detail: "already_exported" };
    const title = typeof event.metadata.title === "string" ? event.metadata.title.slice(0, 200) : "Booked by AgentDraft";
    try {
      await callGoogle(connectionId, () =>
        api.events.insert({
          calendarId: row.googleCalendarId,
          sendUpdates: "none",
          requestBody: {
            id: row.googleEventId,
            summary: title,
            description: `Committed from AgentDraft hold ${event.holdId ?? "-"} (event ${event.id}).`,
            start: { dateTime: event.startTime.toISOString() },
            end: { dateTime: event.endTime.toISOString() },
            transparency: "opaque",
            extendedProperties: { private: { [EXPORT_EVENT_PROPERTY]: event.id, [EXPORT_HOLD_PROPERTY]: event.holdId ?? "" } },
          },
        }),
      );
      return { ok: true, detail: "inserted" };
    } catch (err) {
      // 409 duplicate: our deterministic id is taken, i.e. this event is already there.
      if (googleFailure(err).status === 409) return { ok: true, detail: "already_exported" };
      throw err;
    }
  } catch (err) {
    if (isRevokedGrant(err)) await markConnectionBroken(connectionId, googleFailure(err).message);
    return { ok: false, error: googleFailure(err).message };
  }
}

/** Records an attempt's outcome, with its audit entry (and, on failure, the calendar.sync_failed webhook) in the same transaction. */
async function recordOutcome(row: GoogleEventExportRow, outcome: Outcome): Promise<GoogleEventExportRow | null> {
  return transaction(async (tx) => {
    const [current] = await tx.select().from(googleEventExports).where(eq(googleEventExports.id, row.id)).for("update");
    // A cancel while we were at Google changed what is wanted: leave the row to the next run.
    if (!current || current.desired !== row.desired || current.status !== "pending") {
      if (current) await tx.update(googleEventExports).set({ leasedUntil: null }).where(eq(googleEventExports.id, row.id));
      return null;
    }
    const actor = exportActor(row.workspaceId);
    const attempts = current.attempts + 1;
    if (outcome.ok) {
      const status = row.desired === "present" ? "exported" : "deleted";
      const [done] = await tx
        .update(googleEventExports)
        .set({ status, attempts, leasedUntil: null, lastError: null, nextAttemptAt: null, updatedAt: sql`now()` })
        .where(eq(googleEventExports.id, row.id))
        .returning();
      await appendAudit(tx, [
        {
          actor,
          action: row.desired === "present" ? "google.event_exported" : "google.event_removed",
          resource: { type: "event", id: row.calendarEventId },
          summary: { export_id: row.id, hold_id: row.holdId, google_calendar_id: row.googleCalendarId, google_event_id: row.googleEventId, result: outcome.detail, attempts },
        },
      ]);
      return done!;
    }
    const final = outcome.final || attempts >= MAX_EXPORT_ATTEMPTS;
    const [failed] = await tx
      .update(googleEventExports)
      .set({
        status: final ? "failed" : "pending",
        attempts,
        leasedUntil: null,
        lastError: outcome.error,
        nextAttemptAt: final ? null : sql`now() + make_interval(secs => ${exportRetryDelaySeconds(attempts)})`,
        updatedAt: sql`now()`,
      })
      .where(eq(googleEventExports.id, row.id))
      .returning();
    // Said on the first failure and when giving up; the retries in between are on the row.
    if (attempts === 1 || final) {
      const data = {
        calendar_id: row.calendarId,
        link_id: row.linkId,
        direction: "export",
        operation: row.desired === "present" ? "insert" : "delete",
        event_id: row.calendarEventId,
        hold_id: row.holdId,
        error: outcome.error,
        attempts,
        will_retry: !final,
      };
      await emitEvent(tx, actor, { type: "calendar.sync_failed", data });
      await queueNotifications(tx, { workspaceId: row.workspaceId, type: "calendar.sync_failed", subject: row.id });
      await appendAudit(tx, [{ actor, action: "calendar.sync_failed", resource: { type: "event", id: row.calendarEventId }, outcome: "failed", summary: data }]);
    }
    return failed!;
  });
}

/** The job: runs due exports (inserts after commits, deletions after cancels). Safe to run concurrently with itself. */
export async function runDueExports(limit = 20): Promise<{ attempted: number; succeeded: number }> {
  if (!googleConfig()) return { attempted: 0, succeeded: 0 };
  const rows = await claimDue(limit);
  let succeeded = 0;
  for (const row of rows) {
    const outcome = await pushToGoogle(row);
    const recorded = await recordOutcome(row, outcome);
    if (outcome.ok && recorded) succeeded++;
  }
  return { attempted: rows.length, succeeded };
}

/** The web app's "Retry": a failed export goes back to pending, due now. */
export async function retryExport(actor: Actor, exportId: string): Promise<GoogleEventExportRow> {
  return transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(googleEventExports)
      .where(and(eq(googleEventExports.workspaceId, actor.workspaceId), eq(googleEventExports.id, exportId)))
      .for("update");
    if (!row) throw notFound("Google export", exportId);
    if (row.status !== "failed") throw new AppError("conflict", `This export is ${row.status}, not failed.`);
    const [updated] = await tx
      .update(googleEventExports)
      .set({ status: "pending", attempts: 0, nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(googleEventExports.id, exportId))
      .returning();
    scheduleExports([updated!]);
    await appendAudit(tx, [{ actor, action: "google.export_retried", resource: { type: "event", id: row.calendarEventId }, summary: { export_id: exportId } }]);
    return updated!;
  });
}

/** Exports that need a person's attention (failed) or are still retrying, newest first. */
export async function listProblemExports(workspaceId: string, limit = 50): Promise<GoogleEventExportRow[]> {
  const q = await queryable();
  return q
    .select()
    .from(googleEventExports)
    .where(and(eq(googleEventExports.workspaceId, workspaceId), or(eq(googleEventExports.status, "failed"), and(eq(googleEventExports.status, "pending"), sql`${googleEventExports.attempts} > 0`))))
    .orderBy(desc(googleEventExports.updatedAt))
    .limit(limit);
}

export async function exportsOfEvent(calendarEventId: string): Promise<GoogleEventExportRow[]> {
  const q = await queryable();
  return q.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, calendarEventId));
}
