import type { GoogleConnectionRow, GoogleEventExportRow } from "@/db/schema";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listCalendars } from "@/lib/domains/calendars/calendars";
import { appUrl } from "@/lib/domains/auth/app-url";
import type { CalendarChoice } from "@/lib/domains/calendar-sync/provider";
import type { LinkView } from "@/lib/domains/calendar-sync/links";
import { Card, PageHeader } from "./ui";
import { CalendarSyncPage, type CalendarSyncActions, type CalendarSyncTexts } from "./calendar-sync-page";

/** What one provider's page (Google Calendar, Microsoft 365 / Outlook) plugs into the shared one. */
export type ProviderPage = {
  texts: CalendarSyncTexts;
  actions: CalendarSyncActions;
  /** The header's description while the provider is not configured. */
  summary: string;
  configured: () => boolean;
  notConfigured: { id: string; title: string; intro: string; envVars: string[] };
  callbackUrl: (appUrl: string) => string;
  pushAddress: () => string | null;
  load: (workspaceId: string) => Promise<{ connections: GoogleConnectionRow[]; links: LinkView[]; problems: GoogleEventExportRow[] }>;
  remoteCalendars: (connection: GoogleConnectionRow) => Promise<CalendarChoice[]>;
  describeError: (err: unknown) => string;
};

/** The provider's page for the signed-in member: how to configure it, or its accounts, links and exports. */
export async function ProviderSyncPage({ provider: p, searchParams }: { provider: ProviderPage; searchParams: Promise<Record<string, string | undefined>> }) {
  const { member, workspace } = await requireMember();
  const query = await searchParams;
  const admin = hasRole(member.role, "admin");
  if (!p.configured()) {
    const callback = p.callbackUrl(await appUrl());
    return (
      <>
        <PageHeader title={p.texts.title} description={p.summary} />
        <Card title={p.notConfigured.title} id={p.notConfigured.id}>
          <p className="text-sm text-slate-700">{p.notConfigured.intro}</p>
          <ul className="mt-3 list-inside list-disc text-sm text-slate-800">
            {p.notConfigured.envVars.map((v) => (
              <li key={v}>
                <code className="font-mono">{v}</code>
              </li>
            ))}
          </ul>
          <p className="mt-3 text-sm text-slate-700">
            Redirect URI: <code className="font-mono break-all">{callback}</code>
          </p>
        </Card>
      </>
    );
  }
  const [{ connections, links, problems }, calendars] = await Promise.all([p.load(workspace.id), listCalendars(workspace.id, { limit: 100 })]);
  const linkedIds = new Set(links.map((l) => l.calendarId));
  const unlinked = calendars.items.filter((c) => !linkedIds.has(c.id));
  const calendarsOf = async (connection: GoogleConnectionRow) => {
    if (connection.status !== "active") return { choices: [], error: "Reconnect this account to list its calendars." };
    try {
      return { choices: await p.remoteCalendars(connection), error: null };
    } catch (err) {
      return { choices: [], error: p.describeError(err) };
    }
  };
  const choices = admin ? await Promise.all(connections.map(async (c) => ({ connection: c, ...(await calendarsOf(c)) }))) : [];
  return <CalendarSyncPage t={p.texts} actions={p.actions} query={query} admin={admin} connections={connections} links={links} unlinked={unlinked} choices={choices} problems={problems} push={p.pushAddress()} />;
}
