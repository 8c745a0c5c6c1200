import { createHash } from "node:crypto";
import { and, desc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { queryable, transaction } from "../../../db/transaction";
import { calendarEvents, googleCalendarLinks, googleConnections, googleEventExports, type CalendarProviderId, type GoogleEventExportRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { queueNotifications } from "../notifications";
import type { CalendarProvider, ExportOutcome } from "./provider";
import { loadProvider } from "./providers";
import { markConnectionBroken } from "./watch";
import { armDriftCheck } from "./drift-source";
import { scheduleExportWork } from "../../platform/events/export-outbox";
import { capturesOutbound } from "../../platform/config/preview";
import { recordCapture } from "../../platform/outbound/captures";

/** Attempts before an export is given up as `failed` (then shown in the web app, retried by hand). */
export const MAX_EXPORT_ATTEMPTS = 8;
const LEASE_SECONDS = 120;

/**
 * The deterministic remote id for an AgentDraft event (base32hex, as Google requires), so a
 * second insert of the same event is refused (Google: 409) instead of creating a duplicate.
 * Providers that choose their own ids (Graph) replace it with theirs once the event exists.
 */
export const remoteEventIdFor = (calendarEventId: string) => `agentdraft${createHash("sha256").update(calendarEventId).digest("hex").slice(0, 40)}`;

/** Retry schedule of a failed export: 5 s, 15 s, 45 s... capped at an hour, ±20 % jitter. */
export function exportRetryDelaySeconds(attempts: number, random = Math.random): number {
  const base = Math.min(5 * 3 ** Math.max(attempts - 1, 0), 3600);
  return Math.round(base * (0.8 + random() * 0.4));
}

/** After the transaction commits: each export is its own run, keyed by its link (one remote calendar). */
function scheduleExports(rows: GoogleEventExportRow[], tx?: Transaction): Promise<void> {
  return scheduleExportWork(rows.map((r) => ({ id: r.id, workspaceId: r.workspaceId, key: r.linkId, dueAt: r.nextAttemptAt ?? new Date() })), tx);
}

/** One unit of work: one export, claimed with a lease, pushed to the provider, its outcome recorded. Returns when to retry. */
export async function runExport(provider: CalendarProvider, exportId: string): Promise<{ ok: boolean; retryAt: Date | null } | null> {
  if (!provider.configured()) return null;
  const [row] = await claimDue(provider.id, 1, exportId);
  if (!row) return null;
  const outcome = await pushExport(provider, row);
  const recorded = await recordOutcome(provider, row, outcome);
  return { ok: outcome.ok && recorded !== null, retryAt: recorded?.status === "pending" ? recorded.nextAttemptAt : null };
}

const exportActor = (provider: CalendarProvider, workspaceId: string): Actor => ({ type: "system", workspaceId, job: provider.exportKind });

/** The export's link is one of this provider's (an export whose link is gone is Google's, as it always was). */
const ofProvider = (provider: CalendarProviderId) =>
  provider === "google"
    ? sql`not exists (select 1 from google_calendar_links l join google_connections c on c.id = l.connection_id where l.id = ${googleEventExports.linkId} and c.provider <> 'google')`
    : sql`exists (select 1 from google_calendar_links l join google_connections c on c.id = l.connection_id where l.id = ${googleEventExports.linkId} and c.provider = ${provider})`;

/** Claims due exports with a lease (SKIP LOCKED), so concurrent runners never take the same one. */
async function claimDue(provider: CalendarProviderId, limit: number, onlyId?: string): Promise<GoogleEventExportRow[]> {
  return transaction(async (tx) => {
    const due = await tx
      .select({ id: googleEventExports.id })
      .from(googleEventExports)
      .where(
        and(
          eq(googleEventExports.status, "pending"),
          lte(googleEventExports.nextAttemptAt, sql`now()`),
          or(isNull(googleEventExports.leasedUntil), lt(googleEventExports.leasedUntil, sql`now()`)),
          onlyId ? eq(googleEventExports.id, onlyId) : ofProvider(provider),
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

/** Makes the provider match `desired` for one export, through the provider's idempotent export / delete. */
async function pushExport(provider: CalendarProvider, row: GoogleEventExportRow): Promise<ExportOutcome> {
  const q = await queryable();
  const [found] = row.linkId
    ? await q
        .select({ link: googleCalendarLinks, connection: googleConnections })
        .from(googleCalendarLinks)
        .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
        .where(eq(googleCalendarLinks.id, row.linkId))
    : [];
  if (!found || found.link.googleCalendarId !== row.googleCalendarId || found.connection.provider !== provider.id) {
    return { ok: false, error: `The calendar is no longer linked to this ${provider.brand} calendar.`, final: true };
  }
  if (found.connection.status !== "active") return { ok: false, error: `The ${provider.brand} connection needs to be reconnected.` };
  const connection = found.connection;
  // A preview deployment's copy of production's links: the write is recorded and shown, never made.
  if (capturesOutbound("calendar")) {
    await recordCapture({ workspaceId: row.workspaceId, kind: "calendar", target: `${provider.product}: ${found.link.googleCalendarId}`, summary: { export_id: row.id, calendar_event_id: row.calendarEventId, write: row.desired === "absent" ? "delete" : "upsert" } });
    return { ok: true, detail: row.desired === "absent" ? "deleted" : "inserted" };
  }
  try {
    if (row.desired === "absent") return await provider.deleteEvent(connection, row);
    const [event] = await q.select().from(calendarEvents).where(eq(calendarEvents.id, row.calendarEventId));
    if (!event) return { ok: false, error: "The event no longer exists.", final: true };
    return await provider.exportEvent(connection, row, event);
  } catch (err) {
    if (provider.isRevokedGrant(err)) await markConnectionBroken(provider, connection.id, provider.describe(err));
    return { ok: false, error: provider.describe(err) };
  }
}

/** Records an attempt's outcome, with its audit entry (and, on failure, the calendar.sync_failed webhook) in the same transaction. */
async function recordOutcome(provider: CalendarProvider, row: GoogleEventExportRow, outcome: ExportOutcome): Promise<GoogleEventExportRow | null> {
  return transaction(async (tx) => {
    const [current] = await tx.select().from(googleEventExports).where(eq(googleEventExports.id, row.id)).for("update");
    // A cancel while we were at the provider changed what is wanted: leave the row to the next run.
    // A re-booking (issue #32) may have moved the export to a new event meanwhile: that one is pushed next.
    if (!current || current.desired !== row.desired || current.status !== "pending" || current.calendarEventId !== row.calendarEventId) {
      // The event may exist remotely now: keep its id, so the removal finds it.
      const learned = outcome.ok && outcome.remoteEventId ? { googleEventId: outcome.remoteEventId } : {};
      if (current) await tx.update(googleEventExports).set({ leasedUntil: null, ...learned }).where(eq(googleEventExports.id, row.id));
      return null;
    }
    const actor = exportActor(provider, row.workspaceId);
    const attempts = current.attempts + 1;
    if (outcome.ok) {
      const status = row.desired === "present" ? "exported" : "deleted";
      const remoteEventId = outcome.remoteEventId ?? row.googleEventId;
      const [done] = await tx
        .update(googleEventExports)
        .set({ status, attempts, googleEventId: remoteEventId, leasedUntil: null, lastError: null, nextAttemptAt: null, updatedAt: sql`now()` })
        .where(eq(googleEventExports.id, row.id))
        .returning();
      // A committed event is at the provider now: the link's daily drift check starts, if none is due.
      if (row.desired === "present") await armDriftCheck(tx, row.linkId);
      await appendAudit(tx, [
        {
          actor,
          action: row.desired === "present" ? `${provider.id}.event_exported` : `${provider.id}.event_removed`,
          resource: { type: "event", id: row.calendarEventId },
          summary: {
            export_id: row.id,
            hold_id: row.holdId,
            [`${provider.id}_calendar_id`]: row.googleCalendarId,
            [`${provider.id}_event_id`]: remoteEventId,
            result: outcome.detail,
            attempts,
          },
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

/** The job: runs the provider's due exports (inserts after commits, deletions after cancels). Safe to run concurrently with itself. */
export async function runDueExports(provider: CalendarProvider, limit = 20): Promise<{ attempted: number; succeeded: number }> {
  if (!provider.configured()) return { attempted: 0, succeeded: 0 };
  const rows = await claimDue(provider.id, limit);
  let succeeded = 0;
  for (const row of rows) {
    const outcome = await pushExport(provider, row);
    const recorded = await recordOutcome(provider, row, outcome);
    if (outcome.ok && recorded) succeeded++;
  }
  return { attempted: rows.length, succeeded };
}

/** The provider of an export's link (Google when the link is gone). */
async function providerOfExport(row: GoogleEventExportRow): Promise<CalendarProvider> {
  const q = await queryable();
  const [found] = row.linkId
    ? await q
        .select({ provider: googleConnections.provider })
        .from(googleCalendarLinks)
        .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
        .where(eq(googleCalendarLinks.id, row.linkId))
    : [];
  return loadProvider(found?.provider ?? "google");
}

/** The web app's "Retry": a failed export goes back to pending, due now. */
export async function retryExport(actor: Actor, exportId: string): Promise<GoogleEventExportRow> {
  return transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(googleEventExports)
      .where(and(eq(googleEventExports.workspaceId, actor.workspaceId), eq(googleEventExports.id, exportId)))
      .for("update");
    if (!row) throw notFound("export", exportId);
    if (row.status !== "failed") throw new AppError("conflict", `This export is ${row.status}, not failed.`);
    const provider = await providerOfExport(row);
    const [updated] = await tx
      .update(googleEventExports)
      .set({ status: "pending", attempts: 0, nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(googleEventExports.id, exportId))
      .returning();
    await scheduleExports([updated!], tx);
    await appendAudit(tx, [{ actor, action: `${provider.id}.export_retried`, resource: { type: "event", id: row.calendarEventId }, summary: { export_id: exportId } }]);
    return updated!;
  });
}

/** Exports that need a person's attention (failed) or are still retrying, newest first. */
export async function listProblemExports(workspaceId: string, limit = 50, provider?: CalendarProviderId): Promise<GoogleEventExportRow[]> {
  const q = await queryable();
  return q
    .select()
    .from(googleEventExports)
    .where(
      and(
        eq(googleEventExports.workspaceId, workspaceId),
        or(eq(googleEventExports.status, "failed"), and(eq(googleEventExports.status, "pending"), sql`${googleEventExports.attempts} > 0`)),
        provider ? ofProvider(provider) : undefined,
      ),
    )
    .orderBy(desc(googleEventExports.updatedAt), desc(googleEventExports.id))
    .limit(limit);
}

export async function exportsOfEvent(calendarEventId: string): Promise<GoogleEventExportRow[]> {
  const q = await queryable();
  return q.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, calendarEventId));
}
