import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../db/transaction";
import { calendars, googleCalendarLinks, googleConnections, type GoogleCalendarLinkRow, type GoogleConnectionRow } from "../../db/schema";
import { AppError, notFound } from "../errors";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { lockCalendars } from "../calendars/lock-calendars";
import { isUniqueViolation } from "../../db/errors";
import { calendarClient } from "./oauth-client";
import { callGoogle, googleFailure } from "./quota";
import { authorizedClient } from "./authorized-client";
import { getConnection } from "./connections";
import { stopChannel, watchLink } from "./push-channel";
import { scheduleSync } from "./sync-calendar";

export type GoogleCalendarChoice = { id: string; name: string; primary: boolean; accessRole: string };

/** The Google account's calendars it may write to (the ones a committed event can be exported to). */
export async function listGoogleCalendars(connection: GoogleConnectionRow): Promise<GoogleCalendarChoice[]> {
  const api = calendarClient(authorizedClient(connection));
  const res = await callGoogle(connection.id, () => api.calendarList.list({ minAccessRole: "writer" }));
  return (res.data.items ?? [])
    .filter((c) => c.id)
    .map((c) => ({ id: c.id!, name: c.summaryOverride ?? c.summary ?? c.id!, primary: Boolean(c.primary), accessRole: c.accessRole ?? "writer" }));
}

export const linkCalendarInput = z.object({
  calendar_id: z.string().trim().min(1, "choose a calendar"),
  connection_id: z.string().trim().min(1, "choose a Google account"),
  google_calendar_id: z.string().trim().min(1, "choose a Google calendar").max(1024),
});

/**
 * Links an AgentDraft calendar to one of the connection's Google calendars (one link per
 * calendar, and per Google calendar in a workspace). Opens a push channel when this deployment
 * is reachable; the first sync (full) is due at once.
 */
export async function linkCalendar(actor: Actor, input: z.output<typeof linkCalendarInput>): Promise<GoogleCalendarLinkRow> {
  const connection = await getConnection(actor.workspaceId, input.connection_id);
  if (connection.status !== "active") throw new AppError("conflict", "This Google connection needs to be reconnected first.");
  let choices: GoogleCalendarChoice[];
  try {
    choices = await listGoogleCalendars(connection);
  } catch (err) {
    throw new AppError("service_unavailable", `Could not list the Google calendars: ${googleFailure(err).message}`);
  }
  const chosen = choices.find((c) => c.id === input.google_calendar_id);
  if (!chosen) {
    throw new AppError("validation_failed", "That Google calendar is not one this account can write to.", {
      errors: [{ field: "google_calendar_id", message: "not a writable calendar of this Google account" }],
    });
  }
  let link: GoogleCalendarLinkRow;
  try {
    link = await transaction(async (tx) => {
      const [calendar] = await lockCalendars(tx, actor.workspaceId, [input.calendar_id]);
      const [row] = await tx
        .insert(googleCalendarLinks)
        .values({
          id: newId("googleLink"),
          workspaceId: actor.workspaceId,
          calendarId: calendar!.id,
          connectionId: connection.id,
          googleCalendarId: chosen.id,
          googleCalendarName: chosen.name,
        })
        .returning();
      await appendAudit(tx, [
        {
          actor,
          action: "google.calendar_linked",
          resource: { type: "calendar", id: calendar!.id },
          summary: { link_id: row!.id, connection_id: connection.id, google_calendar_id: chosen.id, google_email: connection.googleEmail },
        },
      ]);
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", "That calendar, or that Google calendar, is already linked.");
    throw err;
  }
  try {
    await watchLink(connection, link);
  } catch (err) {
    // Push is an optimisation: the periodic resync still covers the link; renewal tries again.
    console.error(`[google] could not open a push channel for ${link.id}: ${googleFailure(err).message}`);
  }
  scheduleSync(link); // the first (full) import, now
  return link;
}

/** Unlinks: stops the push channel, removes the link and its imported busy time (under the calendar's lock). */
export async function unlinkCalendar(actor: Actor, linkId: string): Promise<void> {
  const link = await getLink(actor.workspaceId, linkId);
  const q = await queryable();
  const [connection] = await q.select().from(googleConnections).where(eq(googleConnections.id, link.connectionId));
  let stopError: string | null = null;
  if (connection) await stopChannel(connection, link).catch((err) => (stopError = googleFailure(err).message));
  await transaction(async (tx) => {
    await lockCalendars(tx, actor.workspaceId, [link.calendarId]);
    const deleted = await tx.delete(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)).returning();
    if (!deleted.length) return;
    await appendAudit(tx, [
      {
        actor,
        action: "google.calendar_unlinked",
        resource: { type: "calendar", id: link.calendarId },
        summary: { link_id: link.id, google_calendar_id: link.googleCalendarId, channel_stopped: stopError === null, ...(stopError ? { channel_stop_error: stopError } : {}) },
      },
    ]);
  });
}

export async function getLink(workspaceId: string, linkId: string): Promise<GoogleCalendarLinkRow> {
  const q = await queryable();
  const [row] = await q.select().from(googleCalendarLinks).where(and(eq(googleCalendarLinks.workspaceId, workspaceId), eq(googleCalendarLinks.id, linkId)));
  if (!row) throw notFound("Google calendar link", linkId);
  return row;
}

/** Makes a link due for a sync now (the web app's "Sync now"). */
export async function requestSync(workspaceId: string, linkId: string): Promise<GoogleCalendarLinkRow> {
  await getLink(workspaceId, linkId);
  const q = await queryable();
  const [row] = await q.update(googleCalendarLinks).set({ nextSyncAt: sql`now()` }).where(eq(googleCalendarLinks.id, linkId)).returning();
  scheduleSync(row!);
  return row!;
}

export type LinkView = GoogleCalendarLinkRow & { calendarName: string; googleEmail: string };

export async function listLinks(workspaceId: string): Promise<LinkView[]> {
  const q = await queryable();
  const rows = await q
    .select({ link: googleCalendarLinks, calendarName: calendars.name, googleEmail: googleConnections.googleEmail })
    .from(googleCalendarLinks)
    .innerJoin(calendars, eq(calendars.id, googleCalendarLinks.calendarId))
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(eq(googleCalendarLinks.workspaceId, workspaceId))
    .orderBy(asc(calendars.name), asc(googleCalendarLinks.id));
  return rows.map((r) => ({ ...r.link, calendarName: r.calendarName, googleEmail: r.googleEmail }));
}

/** The link of one calendar, if it has one. */
export async function linkOfCalendar(workspaceId: string, calendarId: string): Promise<GoogleCalendarLinkRow | null> {
  const q = await queryable();
  const [row] = await q.select().from(googleCalendarLinks).where(and(eq(googleCalendarLinks.workspaceId, workspaceId), eq(googleCalendarLinks.calendarId, calendarId)));
  return row ?? null;
}
