import type { Metadata } from "next";
import { requireMember } from "@/lib/auth/current-member";
import { hasRole } from "@/lib/members/roles";
import { listCalendars } from "@/lib/calendars/calendars";
import { googleConfig, oauthCallbackUrl, pushNotificationAddress } from "@/lib/google/config";
import { appUrl } from "@/lib/auth/app-url";
import { listConnections } from "@/lib/google/connections";
import { listGoogleCalendars, listLinks, type GoogleCalendarChoice } from "@/lib/google/links";
import { listProblemExports } from "@/lib/google/export-event";
import { googleFailure } from "@/lib/google/quota";
import type { GoogleConnectionRow } from "@/db/schema";
import { Card, PageHeader } from "../_components/ui";
import { CalendarSyncPage, type CalendarSyncTexts } from "../_components/calendar-sync-page";
import { connectGoogleAction, disconnectGoogleAction, linkCalendarAction, retryExportAction, syncNowAction, unlinkCalendarAction } from "./actions";

export const metadata: Metadata = { title: "Google Calendar" };

const ENV_VARS = ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"];

const GOOGLE_TEXTS: CalendarSyncTexts = {
  id: "google",
  title: "Google Calendar",
  description: "Linked calendars import busy time from Google (it blocks holds) and export committed events to Google (removed again when cancelled).",
  accountsTitle: "Google accounts",
  noAccounts: "No Google account is connected.",
  accountsCaption: "Connected Google accounts",
  connectButton: "Connect Google account",
  connectHint: "You will be sent to Google to allow AgentDraft to read your calendars and manage events it creates; you come back here after.",
  adminsConnect: "Admins and owners connect Google accounts.",
  pushOn: (push) => (
    <>Google notifies this server of changes (push channels to <code className="font-mono">{push}</code>); every calendar is also resynced periodically.</>
  ),
  pushOff: (
    <>This server has no public https address, so Google cannot push changes: linked calendars are resynced periodically (set <code className="font-mono">GOOGLE_PUSH_BASE_URL</code> or an https <code className="font-mono">AUTH_URL</code> for push).</>
  ),
  noLinks: "No calendar is linked to Google yet.",
  linksCaption: "Calendars linked to Google",
  remoteCalendar: "Google calendar",
  pushUntil: "push until",
  fieldPrefix: "gcal",
  fieldName: "google_calendar_id",
  primaryWord: "primary",
  noProblems: "Every committed event on a linked calendar is in Google.",
  problemsCaption: "Exports to Google that failed or are being retried",
  createIn: "create in Google",
  removeFrom: "remove from Google",
};

const ACTIONS = { connect: connectGoogleAction, disconnect: disconnectGoogleAction, link: linkCalendarAction, unlink: unlinkCalendarAction, syncNow: syncNowAction, retry: retryExportAction };

async function calendarsOf(connection: GoogleConnectionRow): Promise<{ choices: GoogleCalendarChoice[]; error: string | null }> {
  if (connection.status !== "active") return { choices: [], error: "Reconnect this account to list its calendars." };
  try {
    return { choices: await listGoogleCalendars(connection), error: null };
  } catch (err) {
    return { choices: [], error: googleFailure(err).message };
  }
}

function NotConfigured({ callback }: { callback: string }) {
  return (
    <Card title="Google not configured" id="google-not-configured">
      <p className="text-sm text-slate-700">
        Google Calendar sync is off: this server has no Google OAuth client. Everything else works without it. To turn it on, create an OAuth client (type “Web application”) in a Google Cloud project with the Google Calendar API enabled, add this redirect URI to it, and set these variables before starting the server:
      </p>
      <ul className="mt-3 list-inside list-disc text-sm text-slate-800">
        {ENV_VARS.map((v) => (
          <li key={v}>
            <code className="font-mono">{v}</code>
          </li>
        ))}
      </ul>
      <p className="mt-3 text-sm text-slate-700">
        Redirect URI: <code className="font-mono break-all">{callback}</code>
      </p>
    </Card>
  );
}

export default async function GooglePage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { member, workspace } = await requireMember();
  const query = await searchParams;
  const admin = hasRole(member.role, "admin");
  const callback = oauthCallbackUrl(await appUrl());
  if (!googleConfig()) {
    return (
      <>
        <PageHeader title="Google Calendar" description="Import busy time from Google calendars and export committed events to them." />
        <NotConfigured callback={callback} />
      </>
    );
  }
  const [connections, links, calendars, problems] = await Promise.all([
    listConnections(workspace.id),
    listLinks(workspace.id),
    listCalendars(workspace.id, { limit: 100 }),
    listProblemExports(workspace.id),
  ]);
  const linkedIds = new Set(links.map((l) => l.calendarId));
  const unlinked = calendars.items.filter((c) => !linkedIds.has(c.id));
  const choices = admin ? await Promise.all(connections.map(async (c) => ({ connection: c, ...(await calendarsOf(c)) }))) : [];
  const push = pushNotificationAddress();

  return <CalendarSyncPage t={GOOGLE_TEXTS} actions={ACTIONS} query={query} admin={admin} connections={connections} links={links} unlinked={unlinked} choices={choices} problems={problems} push={push} />;
}
