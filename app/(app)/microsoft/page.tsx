import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/auth/current-member";
import { hasRole } from "@/lib/members/roles";
import { listCalendars } from "@/lib/calendars/calendars";
import { microsoftCallbackUrl, microsoftConfig, notificationAddresses } from "@/lib/microsoft/config";
import { appUrl } from "@/lib/auth/app-url";
import { listMicrosoftCalendars, listMicrosoftConnections, listMicrosoftLinks, listProblemMicrosoftExports } from "@/lib/microsoft/calendar-sync";
import { describeMicrosoft } from "@/lib/microsoft/graph";
import type { CalendarChoice } from "@/lib/calendar-sync/provider";
import type { GoogleConnectionRow } from "@/db/schema";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, linkClass, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { connectMicrosoftAction, disconnectMicrosoftAction, linkMicrosoftCalendarAction, retryMicrosoftExportAction, syncMicrosoftNowAction, unlinkMicrosoftCalendarAction } from "./actions";

export const metadata: Metadata = { title: "Microsoft 365 / Outlook" };

const ENV_VARS = ["MICROSOFT_CLIENT_ID", "MICROSOFT_CLIENT_SECRET", "MICROSOFT_TENANT (optional; common by default)"];

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

  return (
    <>
      <PageHeader
        title="Microsoft 365 / Outlook"
        description="Linked calendars import busy time from Outlook (busy, tentative, out of office and working elsewhere block holds; free does not) and export committed events to Outlook (removed again when cancelled)."
      />
      {query.connected ? (
        <p role="status" className="mb-4 rounded-md bg-green-50 px-3 py-2 text-sm text-green-900">
          Connected {query.connected}.
        </p>
      ) : null}
      {query.error ? (
        <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {query.error}
        </p>
      ) : null}

      <Card title="Microsoft accounts" id="microsoft-accounts">
        {connections.length === 0 ? <Empty>No Microsoft account is connected.</Empty> : (
          <Table caption="Connected Microsoft accounts" head={["Account", "Status", "Connected", ""]}>
            {connections.map((c) => (
              <tr key={c.id}>
                <td className="py-2 pr-4 font-medium">{c.googleEmail}</td>
                <td className="py-2 pr-4">
                  {c.status === "active" ? <Badge tone="green">connected</Badge> : <Badge tone="red">reconnect needed</Badge>}
                  {c.lastError ? <p className="mt-1 text-xs text-red-800">{c.lastError}</p> : null}
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={c.createdAt} />
                </td>
                <td className="py-2">
                  {admin ? (
                    <ActionForm action={disconnectMicrosoftAction} submit={<>Disconnect<span className="sr-only"> {c.googleEmail}</span></>} submitClassName={dangerButtonClass}>
                      <input type="hidden" name="connection_id" value={c.id} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {admin ? (
          <ActionForm action={connectMicrosoftAction} submit={connections.length ? "Connect another account (or reconnect)" : "Connect Microsoft account"} className="mt-4">
            <p className="mb-3 text-sm text-slate-700">You will be sent to Microsoft to sign in (work, school or personal account) and allow AgentDraft to read your calendars and manage events it creates; you come back here after.</p>
          </ActionForm>
        ) : (
          <p className="mt-3 text-sm text-slate-600">Admins and owners connect Microsoft accounts.</p>
        )}
      </Card>

      <Card title="Linked calendars" id="microsoft-links">
        <p className="mb-3 text-sm text-slate-700">
          {push ? (
            <>Microsoft Graph notifies this server of changes (subscriptions to <code className="font-mono">{push}</code>, renewed before they expire); every calendar is also resynced periodically.</>
          ) : (
            <>This server has no public https address, so Graph cannot notify it: linked calendars are resynced periodically (set <code className="font-mono">MICROSOFT_NOTIFICATION_BASE_URL</code> or an https <code className="font-mono">AUTH_URL</code> for change notifications).</>
          )}
        </p>
        {links.length === 0 ? <Empty>No calendar is linked to Outlook yet.</Empty> : (
          <Table caption="Calendars linked to Outlook" head={["Calendar", "Outlook calendar", "Sync", "Last synced", ""]}>
            {links.map((l) => (
              <tr key={l.id} data-testid="microsoft-link">
                <td className="py-2 pr-4">
                  <Link className={linkClass} href={`/calendars/${l.calendarId}`}>
                    {l.calendarName}
                  </Link>
                </td>
                <td className="py-2 pr-4 text-xs">
                  {l.googleCalendarName ?? l.googleCalendarId}
                  <br />
                  <span className="text-slate-600">{l.googleEmail}</span>
                </td>
                <td className="py-2 pr-4">
                  {l.syncStatus === "ok" ? <Badge tone="green">in sync</Badge> : l.syncStatus === "failed" ? <Badge tone="red">failing</Badge> : <Badge tone="amber">first sync pending</Badge>}
                  {l.lastSyncError ? <p className="mt-1 max-w-xs text-xs text-red-800">{l.lastSyncError}</p> : null}
                  <p className="mt-1 text-xs text-slate-600">{l.channelExpiresAt ? <>subscribed until <Time at={l.channelExpiresAt} /></> : "periodic resync"}</p>
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={l.lastSyncedAt} />
                </td>
                <td className="py-2">
                  {admin ? (
                    <div className="flex flex-wrap gap-2">
                      <ActionForm action={syncMicrosoftNowAction} submit={<>Sync now<span className="sr-only"> {l.calendarName}</span></>} submitClassName={secondaryButtonClass}>
                        <input type="hidden" name="link_id" value={l.id} />
                      </ActionForm>
                      <ActionForm action={unlinkMicrosoftCalendarAction} submit={<>Unlink<span className="sr-only"> {l.calendarName}</span></>} submitClassName={dangerButtonClass}>
                        <input type="hidden" name="link_id" value={l.id} />
                      </ActionForm>
                    </div>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {admin
          ? choices.map(({ connection, choices: gcals, error }) => (
              <div key={connection.id} className="mt-5 border-t border-slate-100 pt-4">
                <h3 className="mb-2 text-sm font-semibold text-slate-900">Link a calendar to {connection.googleEmail}</h3>
                {error ? (
                  <p className="text-sm text-red-800">Could not list its calendars: {error}</p>
                ) : unlinked.length === 0 ? (
                  <p className="text-sm text-slate-600">Every calendar is linked already.</p>
                ) : (
                  <ActionForm action={linkMicrosoftCalendarAction} submit="Link" className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
                    <input type="hidden" name="connection_id" value={connection.id} />
                    <Field label="AgentDraft calendar" name={`calendar-${connection.id}`}>
                      <select id={`calendar-${connection.id}`} name="calendar_id" required className={inputClass}>
                        {unlinked.map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.name}
                          </option>
                        ))}
                      </select>
                    </Field>
                    <Field label="Outlook calendar" name={`mcal-${connection.id}`}>
                      <select id={`mcal-${connection.id}`} name="microsoft_calendar_id" required className={inputClass}>
                        {gcals.map((g) => (
                          <option key={g.id} value={g.id}>
                            {g.name}
                            {g.primary ? " (default)" : ""}
                          </option>
                        ))}
                      </select>
                    </Field>
                  </ActionForm>
                )}
              </div>
            ))
          : null}
      </Card>

      <Card title="Export problems" id="microsoft-export-problems">
        {problems.length === 0 ? <Empty>Every committed event on a linked calendar is in Outlook.</Empty> : (
          <Table caption="Exports to Outlook that failed or are being retried" head={["Event", "Operation", "Status", "Last error", ""]}>
            {problems.map((p) => (
              <tr key={p.id}>
                <td className="py-2 pr-4 text-xs">
                  <code className="font-mono">{p.calendarEventId}</code>
                  <br />
                  hold <code className="font-mono">{p.holdId ?? "—"}</code>
                </td>
                <td className="py-2 pr-4 text-xs">{p.desired === "present" ? "create in Outlook" : "remove from Outlook"}</td>
                <td className="py-2 pr-4 text-xs">
                  {p.status === "failed" ? <Badge tone="red">failed after {p.attempts} attempts</Badge> : <Badge tone="amber">retrying ({p.attempts} so far)</Badge>}
                  {p.nextAttemptAt && p.status === "pending" ? <p className="mt-1">next <Time at={p.nextAttemptAt} /></p> : null}
                </td>
                <td className="py-2 pr-4 text-xs text-red-800">{p.lastError}</td>
                <td className="py-2">
                  {admin && p.status === "failed" ? (
                    <ActionForm action={retryMicrosoftExportAction} submit={<>Retry<span className="sr-only"> {p.calendarEventId}</span></>} submitClassName={secondaryButtonClass}>
                      <input type="hidden" name="export_id" value={p.id} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}
