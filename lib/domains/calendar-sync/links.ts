import { and, asc, eq, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { calendars, googleCalendarLinks, googleConnections, type CalendarProviderId, type GoogleCalendarLinkRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { lockCalendars } from "../calendars";
import { isUniqueViolation } from "../../../db/errors";
import type { CalendarChoice, CalendarProvider } from "./provider";
import { getConnection } from "./connect";
import { stopWatch, watchLink } from "./watch";
import { scheduleSync } from "./sync-link";

/**
 * Links an AgentDraft calendar to one of the connection's calendars at its provider (one link
 * per calendar, and per remote calendar in a workspace). Opens a change subscription when this
 * deployment is reachable; the first sync (full) is due at once. `field` names the input field
 * for errors (google_calendar_id, microsoft_calendar_id).
 */
export async function linkCalendar(
  provider: CalendarProvider,
  actor: Actor,
  input: { calendarId: string; connectionId: string; remoteCalendarId: string },
): Promise<GoogleCalendarLinkRow> {
  const connection = await getConnection(actor.workspaceId, input.connectionId);
  if (connection.provider !== provider.id) throw notFound(`${provider.brand} connection`, input.connectionId);
  if (connection.status !== "active") throw new AppError("conflict", `This ${provider.brand} connection needs to be reconnected first.`);
  let choices: CalendarChoice[];
  try {
    choices = await provider.listCalendars(connection);
  } catch (err) {
    throw new AppError("service_unavailable", `Could not list the ${provider.brand} calendars: ${provider.describe(err)}`);
  }
  const field = `${provider.id}_calendar_id`;
  const chosen = choices.find((c) => c.id === input.remoteCalendarId);
  if (!chosen) {
    throw new AppError("validation_failed", `That ${provider.brand} calendar is not one this account can write to.`, {
      errors: [{ field, message: `not a writable calendar of this ${provider.brand} account` }],
    });
  }
  let link: GoogleCalendarLinkRow;
  try {
    link = await transaction(async (tx) => {
      const [calendar] = await lockCalendars(tx, actor.workspaceId, [input.calendarId]);
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
          action: `${provider.id}.calendar_linked`,
          resource: { type: "calendar", id: calendar!.id },
          summary: { link_id: row!.id, connection_id: connection.id, [field]: chosen.id, [`${provider.id}_email`]: connection.googleEmail },
        },
      ]);
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", `That calendar, or that ${provider.brand} calendar, is already linked.`);
    throw err;
  }
  try {
    await watchLink(provider, connection, link);
  } catch (err) {
    // Push is an optimisation: the periodic resync still covers the link; renewal tries again.
    console.error(`[${provider.id}] could not open a change subscription for ${link.id}: ${provider.describe(err)}`);
  }
  scheduleSync(provider, link); // the first (full) import, now
  return link;
}

/** Unlinks: stops the subscription, removes the link and its imported busy time (under the calendar's lock). */
export async function unlinkCalendar(provider: CalendarProvider, actor: Actor, linkId: string): Promise<void> {
  const link = await getLink(actor.workspaceId, linkId);
  const q = await queryable();
  const [connection] = await q.select().from(googleConnections).where(eq(googleConnections.id, link.connectionId));
  let stopError: string | null = null;
  if (connection) await stopWatch(provider, connection, link).catch((err) => (stopError = provider.describe(err)));
  await transaction(async (tx) => {
    await lockCalendars(tx, actor.workspaceId, [link.calendarId]);
    const deleted = await tx.delete(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)).returning();
    if (!deleted.length) return;
    await appendAudit(tx, [
      {
        actor,
        action: `${provider.id}.calendar_unlinked`,
        resource: { type: "calendar", id: link.calendarId },
        summary: {
          link_id: link.id,
          [`${provider.id}_calendar_id`]: link.googleCalendarId,
          channel_stopped: stopError === null,
          ...(stopError ? { channel_stop_error: stopError } : {}),
        },
      },
    ]);
  });
}

export async function getLink(workspaceId: string, linkId: string): Promise<GoogleCalendarLinkRow> {
  const q = await queryable();
  const [row] = await q.select().from(googleCalendarLinks).where(and(eq(googleCalendarLinks.workspaceId, workspaceId), eq(googleCalendarLinks.id, linkId)));
  if (!row) throw notFound("calendar link", linkId);
  return row;
}

/** Makes a link due for a sync now (the web app's "Sync now"). */
export async function requestSync(provider: CalendarProvider, workspaceId: string, linkId: string): Promise<GoogleCalendarLinkRow> {
  await getLink(workspaceId, linkId);
  const q = await queryable();
  const [row] = await q.update(googleCalendarLinks).set({ nextSyncAt: sql`now()` }).where(eq(googleCalendarLinks.id, linkId)).returning();
  scheduleSync(provider, row!);
  return row!;
}

export type LinkView = GoogleCalendarLinkRow & { calendarName: string; googleEmail: string; provider: CalendarProviderId };

/** The workspace's links (of one provider, or all). */
export async function listLinks(workspaceId: string, provider?: CalendarProviderId): Promise<LinkView[]> {
  const q = await queryable();
  const rows = await q
    .select({ link: googleCalendarLinks, calendarName: calendars.name, googleEmail: googleConnections.googleEmail, provider: googleConnections.provider })
    .from(googleCalendarLinks)
    .innerJoin(calendars, eq(calendars.id, googleCalendarLinks.calendarId))
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(and(eq(googleCalendarLinks.workspaceId, workspaceId), provider ? eq(googleConnections.provider, provider) : undefined))
    .orderBy(asc(calendars.name), asc(googleCalendarLinks.id));
  return rows.map((r) => ({ ...r.link, calendarName: r.calendarName, googleEmail: r.googleEmail, provider: r.provider }));
}

/** The link of one calendar, if it has one (whichever provider). */
export async function linkOfCalendar(workspaceId: string, calendarId: string): Promise<(GoogleCalendarLinkRow & { provider: CalendarProviderId }) | null> {
  const q = await queryable();
  const [row] = await q
    .select({ link: googleCalendarLinks, provider: googleConnections.provider })
    .from(googleCalendarLinks)
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(and(eq(googleCalendarLinks.workspaceId, workspaceId), eq(googleCalendarLinks.calendarId, calendarId)));
  return row ? { ...row.link, provider: row.provider } : null;
}
