import type { Metadata } from "next";
import { microsoftCallbackUrl, microsoftConfig, notificationAddresses } from "@/lib/domains/calendar-sync/microsoft/config";
import { listMicrosoftCalendars, listMicrosoftConnections, listMicrosoftLinks, listProblemMicrosoftExports } from "@/lib/domains/calendar-sync/microsoft/calendar-sync";
import { describeMicrosoft } from "@/lib/domains/calendar-sync/microsoft/graph";
import type { CalendarSyncTexts } from "../_components/calendar-sync-page";
import { ProviderSyncPage, type ProviderPage } from "../_components/provider-page";
import { connectMicrosoftAction, disconnectMicrosoftAction, linkMicrosoftCalendarAction, retryMicrosoftExportAction, syncMicrosoftNowAction, unlinkMicrosoftCalendarAction } from "./actions";

export const metadata: Metadata = { title: "Microsoft 365 / Outlook" };

const MICROSOFT_TEXTS: CalendarSyncTexts = {
  id: "microsoft",
  title: "Microsoft 365 / Outlook",
  description: "Linked calendars import busy time from Outlook (busy, tentative, out of office and working elsewhere block holds; free does not) and export committed events to Outlook (removed again when cancelled).",
  accountsTitle: "Microsoft accounts",
  noAccounts: "No Microsoft account is connected.",
  accountsCaption: "Connected Microsoft accounts",
  connectButton: "Connect Microsoft account",
  connectHint: "You will be sent to Microsoft to sign in (work, school or personal account) and allow AgentDraft to read your calendars and manage events it creates; you come back here after.",
  adminsConnect: "Admins and owners connect Microsoft accounts.",
  pushOn: (push) => (
    <>Microsoft Graph notifies this server of changes (subscriptions to <code className="font-mono">{push}</code>, renewed before they expire); every calendar is also resynced periodically.</>
  ),
  pushOff: (
    <>This server has no public https address, so Graph cannot notify it: linked calendars are resynced periodically (set <code className="font-mono">MICROSOFT_NOTIFICATION_BASE_URL</code> or an https <code className="font-mono">AUTH_URL</code> for change notifications).</>
  ),
  noLinks: "No calendar is linked to Outlook yet.",
  linksCaption: "Calendars linked to Outlook",
  remoteCalendar: "Outlook calendar",
  pushUntil: "subscribed until",
  fieldPrefix: "mcal",
  fieldName: "microsoft_calendar_id",
  primaryWord: "default",
  noProblems: "Every committed event on a linked calendar is in Outlook.",
  problemsCaption: "Exports to Outlook that failed or are being retried",
  createIn: "create in Outlook",
  removeFrom: "remove from Outlook",
};

const ACTIONS = {
  connect: connectMicrosoftAction,
  disconnect: disconnectMicrosoftAction,
  link: linkMicrosoftCalendarAction,
  unlink: unlinkMicrosoftCalendarAction,
  syncNow: syncMicrosoftNowAction,
  retry: retryMicrosoftExportAction,
};

const MICROSOFT: ProviderPage = {
  texts: MICROSOFT_TEXTS,
  actions: ACTIONS,
  summary: "Import busy time from Outlook calendars and export committed events to them.",
  configured: () => Boolean(microsoftConfig()),
  notConfigured: {
    id: "microsoft-not-configured",
    title: "Microsoft 365 not configured",
    intro:
      "Microsoft 365 / Outlook sync is off: this server has no Microsoft app registration. Everything else works without it. To turn it on, register an app in Microsoft Entra ID (App registrations), add this redirect URI under the Web platform, add the delegated Microsoft Graph permissions Calendars.ReadWrite, offline_access, User.Read and MailboxSettings.Read, create a client secret, and set these variables before starting the server:",
    envVars: ["MICROSOFT_CLIENT_ID", "MICROSOFT_CLIENT_SECRET", "MICROSOFT_TENANT (optional; common by default)"],
  },
  callbackUrl: microsoftCallbackUrl,
  pushAddress: () => notificationAddresses()?.notificationUrl ?? null,
  load: async (workspaceId) => {
    const [connections, links, problems] = await Promise.all([listMicrosoftConnections(workspaceId), listMicrosoftLinks(workspaceId), listProblemMicrosoftExports(workspaceId)]);
    return { connections, links, problems };
  },
  remoteCalendars: listMicrosoftCalendars,
  describeError: describeMicrosoft,
};

export default function MicrosoftPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  return <ProviderSyncPage provider={MICROSOFT} searchParams={searchParams} />;
}
