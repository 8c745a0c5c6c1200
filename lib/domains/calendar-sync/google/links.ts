import { z } from "zod";
import type { GoogleCalendarLinkRow, GoogleConnectionRow } from "../../../../db/schema";
import type { Actor } from "../../../platform/actor";
import type { CalendarChoice } from "../provider";
import * as shared from "../links";
import { googleProvider } from "./provider";

// Google's links are the shared engine's (lib/domains/calendar-sync/links.ts) with Google's input names.
export { getLink, linkOfCalendar } from "../links";

export type GoogleCalendarChoice = CalendarChoice;
export type LinkView = shared.LinkView;

/** The Google account's calendars it may write to (the ones a committed event can be exported to). */
export const listGoogleCalendars = (connection: GoogleConnectionRow): Promise<GoogleCalendarChoice[]> => googleProvider.listCalendars(connection);

export const linkCalendarInput = z.object({
  calendar_id: z.string().trim().min(1, "choose a calendar"),
  connection_id: z.string().trim().min(1, "choose a Google account"),
  google_calendar_id: z.string().trim().min(1, "choose a Google calendar").max(1024),
});

/** Links an AgentDraft calendar to one of the connection's Google calendars. */
export const linkCalendar = (actor: Actor, input: z.output<typeof linkCalendarInput>): Promise<GoogleCalendarLinkRow> =>
  shared.linkCalendar(googleProvider, actor, { calendarId: input.calendar_id, connectionId: input.connection_id, remoteCalendarId: input.google_calendar_id });

/** Unlinks: stops the push channel, removes the link and its imported busy time (under the calendar's lock). */
export const unlinkCalendar = (actor: Actor, linkId: string) => shared.unlinkCalendar(googleProvider, actor, linkId);

/** Makes a link due for a sync now (the web app's "Sync now"). */
export const requestSync = (workspaceId: string, linkId: string) => shared.requestSync(googleProvider, workspaceId, linkId);

/** The workspace's Google links. */
export const listLinks = (workspaceId: string) => shared.listLinks(workspaceId, "google");
