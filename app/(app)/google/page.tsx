import type { Metadata } from "next";
import { googleConfig, oauthCallbackUrl, pushNotificationAddress } from "@/lib/domains/calendar-sync/google/config";
import { listConnections } from "@/lib/domains/calendar-sync/google/connections";
import { listGoogleCalendars, listLinks } from "@/lib/domains/calendar-sync/google/links";
import { listProblemExports } from "@/lib/domains/calendar-sync/google/export-event";
import { googleFailure } from "@/lib/domains/calendar-sync/google/quota";
import type { CalendarSyncTexts } from "../_components/calendar-sync-page";
import { ProviderSyncPage, type ProviderPage } from "../_components/provider-page";
import { connectGoogleAction, disconnectGoogleAction, linkCalendarAction, retryExportAction, syncNowAction, unlinkCalendarAction } from "./actions";

export const metadata: Metadata = { title: "Google Calendar" };

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

const GOOGLE: ProviderPage = {
  texts: GOOGLE_TEXTS,
  actions: ACTIONS,
  summary: "Import busy time from Google calendars and export committed events to them.",
  configured: () => Boolean(googleConfig()),
  notConfigured: {
    id: "google-not-configured",
    title: "Google not configured",
    intro:
      "Google Calendar sync is off: this server has no Google OAuth client. Everything else works without it. To turn it on, create an OAuth client (type “Web application”) in a Google Cloud project with the Google Calendar API enabled, add this redirect URI to it, and set these variables before starting the server:",
    envVars: ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
  },
  callbackUrl: oauthCallbackUrl,
  pushAddress: pushNotificationAddress,
  load: async (workspaceId) => {
    const [connections, links, problems] = await Promise.all([listConnections(workspaceId), listLinks(workspaceId), listProblemExports(workspaceId)]);
    return { connections, links, problems };
  },
  remoteCalendars: listGoogleCalendars,
  describeError: (err) => googleFailure(err).message,
};

export default function GooglePage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  return <ProviderSyncPage provider={GOOGLE} searchParams={searchParams} />;
}
