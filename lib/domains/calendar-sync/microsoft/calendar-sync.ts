import { z } from "zod";
import type { GoogleCalendarLinkRow, GoogleConnectionRow, MemberRow } from "../../../../db/schema";
import type { Actor } from "../../../platform/actor";
import * as connect from "../connect";
import * as links from "../links";
import { syncDueLinks as syncDue } from "../sync-link";
import { listProblemExports as listProblems, runDueExports as runDue, runExport as runOne } from "../exports";
import { microsoftProvider } from "./provider";

// Microsoft 365 / Outlook on the shared engine (lib/domains/calendar-sync): the names the web app, routes and jobs use.

export const startMicrosoftConnect = (member: MemberRow, redirectUri: string) => connect.startConnect(microsoftProvider, member, redirectUri);

export const completeMicrosoftConnect = (member: MemberRow, input: { cookie: string | undefined; state: string | null; code: string | null; error?: string | null }) =>
  connect.completeConnect(microsoftProvider, member, input);

export const listMicrosoftConnections = (workspaceId: string): Promise<GoogleConnectionRow[]> => connect.listConnections(workspaceId, "microsoft");

/** Disconnects: subscriptions deleted, calendars unlinked, the token forgotten (Microsoft cannot revoke one app's token: the result says so). */
export const disconnectMicrosoft = (actor: Actor, connectionId: string) => connect.disconnect(microsoftProvider, actor, connectionId);

export const listMicrosoftCalendars = (connection: GoogleConnectionRow) => microsoftProvider.listCalendars(connection);

export const linkMicrosoftCalendarInput = z.object({
  calendar_id: z.string().trim().min(1, "choose a calendar"),
  connection_id: z.string().trim().min(1, "choose a Microsoft account"),
  microsoft_calendar_id: z.string().trim().min(1, "choose an Outlook calendar").max(2048),
});

export const linkMicrosoftCalendar = (actor: Actor, input: z.output<typeof linkMicrosoftCalendarInput>): Promise<GoogleCalendarLinkRow> =>
  links.linkCalendar(microsoftProvider, actor, { calendarId: input.calendar_id, connectionId: input.connection_id, remoteCalendarId: input.microsoft_calendar_id });

export const unlinkMicrosoftCalendar = (actor: Actor, linkId: string) => links.unlinkCalendar(microsoftProvider, actor, linkId);
export const requestMicrosoftSync = (workspaceId: string, linkId: string) => links.requestSync(microsoftProvider, workspaceId, linkId);
export const listMicrosoftLinks = (workspaceId: string) => links.listLinks(workspaceId, "microsoft");

export const syncDueMicrosoftLinks = (limit = 25) => syncDue(microsoftProvider, limit);
export const runMicrosoftExport = (exportId: string) => runOne(microsoftProvider, exportId);
export const runDueMicrosoftExports = (limit = 20) => runDue(microsoftProvider, limit);
export const listProblemMicrosoftExports = (workspaceId: string, limit = 50) => listProblems(workspaceId, limit, "microsoft");
