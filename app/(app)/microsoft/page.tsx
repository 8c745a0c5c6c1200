import type { Metadata } from "next";
import { requireMember } from "@/lib/auth/current-member";
import { hasRole } from "@/lib/members/roles";
import { listCalendars } from "@/lib/calendars/calendars";
import { microsoftCallbackUrl, microsoftConfig, notificationAddresses } from "@/lib/microsoft/config";
import { appUrl } from "@/lib/auth/app-url";
import { listMicrosoftCalendars, listMicrosoftConnections, listMicrosoftLinks, listProblemMicrosoftExports } from "@/lib/microsoft/calendar-sync";
import { describeMicrosoft } from "@/lib/microsoft/graph";
import type { CalendarChoice } from "@/lib/calendar-sync/provider";
import type { GoogleConnectionRow } from "@/db/schema";
import { Card, PageHeader } from "../_components/ui";
import { CalendarSyncPage, type CalendarSyncTexts } from "../_components/calendar-sync-page";
import { connectMicrosoftAction, disconnectMicrosoftAction, linkMicrosoftCalendarAction, retryMicrosoftExportAction, syncMicrosoftNowAction, unlinkMicrosoftCalendarAction } from "./actions";

export const metadata: Metadata = { title: "Microsoft 365 / Outlook" };

const ENV_VARS = ["MICROSOFT_CLIENT_ID", "MICROSOFT_CLIENT_SECRET", "MICROSOFT_TENANT (optional; common by default)"];

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

async function calendarsOf(connection: GoogleConnectionRow): Promise<{ choices: CalendarChoice[]; error: string | null }> {
  if (connection.status !== "active") return { choices: [], error: "Reconnect this account to list its calendars." };
  try {
    return { choices: await listMicrosoftCalendars(connection), error: null };
  } catch (err) {
    return { choices: [], error: describeMicrosoft(err) };
  }
}

function NotConfigured({ callback }: { callback: string }) {
  return (
    <Card title="Microsoft 365 not configured" id="microsoft-not-configured">
      <p className="text-sm text-slate-700">
        Microsoft 365 / Outlook sync is off: this server has no Microsoft app registration. Everything else works without it. To turn it on, register an app in Microsoft Entra ID (App registrations), add this redirect URI under the Web platform, add the delegated Microsoft Graph permissions Calendars.ReadWrite, offline_access, User.Read and MailboxSettings.Read, create a client secret, and set these variables before starting the server:
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

export default async function MicrosoftPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { member, workspace } = await requireMember();
  const query = await searchParams;
  const admin = hasRole(member.role, "admin");
  const callback = microsoftCallbackUrl(await appUrl());
  if (!microsoftConfig()) {
    return (
      <>
        <PageHeader title="Microsoft 365 / Outlook" description="Import busy time from Outlook calendars and export committed events to them." />
        <NotConfigured callback={callback} />
      </>
    );
  }
  const [connections, links, calendars, problems] = await Promise.all([
    listMicrosoftConnections(workspace.id),
    listMicrosoftLinks(workspace.id),
    listCalendars(workspace.id, { limit: 100 }),
    listProblemMicrosoftExports(workspace.id),
  ]);
  const linkedIds = new Set(links.map((l) => l.calendarId));
  const unlinked = calendars.items.filter((c) => !linkedIds.has(c.id));
  const choices = admin ? await Promise.all(connections.map(async (c) => ({ connection: c, ...(await calendarsOf(c)) }))) : [];
  const push = notificationAddresses()?.notificationUrl ?? null;

  return <CalendarSyncPage t={MICROSOFT_TEXTS} actions={ACTIONS} query={query} admin={admin} connections={connections} links={links} unlinked={unlinked} choices={choices} problems={problems} push={push} />;
}
