import Link from "next/link";
import type { ReactNode } from "react";
import type { GoogleConnectionRow, GoogleEventExportRow } from "@/db/schema";
import type { ActionState } from "@/lib/domains/auth/member-action";
import type { CalendarChoice } from "@/lib/domains/calendar-sync/provider";
import type { LinkView } from "@/lib/domains/calendar-sync/links";
import { ActionForm } from "./action-form";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, linkClass, secondaryButtonClass } from "./ui";
import { Time } from "./time";

type Action = (state: ActionState, form: FormData) => Promise<ActionState>;

/** What a provider's page says (Google Calendar, Microsoft 365 / Outlook); the page is otherwise the same. */
export type CalendarSyncTexts = {
  id: string;
  title: string;
  description: string;
  accountsTitle: string;
  noAccounts: string;
  accountsCaption: string;
  connectButton: string;
  connectHint: string;
  adminsConnect: string;
  pushOn: (address: string) => ReactNode;
  pushOff: ReactNode;
  noLinks: string;
  linksCaption: string;
  remoteCalendar: string;
  pushUntil: string;
  fieldPrefix: string;
  fieldName: string;
  primaryWord: string;
  noProblems: string;
  problemsCaption: string;
  createIn: string;
  removeFrom: string;
};

export type CalendarSyncActions = { connect: Action; disconnect: Action; link: Action; unlink: Action; syncNow: Action; retry: Action };

/**
 * A calendar provider's page, once for every provider: its accounts (connect, disconnect), the
 * linked calendars (sync status, subscription, sync now, unlink, link another) and the exports
 * that need attention (retry).
 */
export function CalendarSyncPage({
  t,
  actions,
  query,
  admin,
  connections,
  links,
  unlinked,
  choices,
  problems,
  push,
}: {
  t: CalendarSyncTexts;
  actions: CalendarSyncActions;
  query: Record<string, string | undefined>;
  admin: boolean;
  connections: GoogleConnectionRow[];
  links: LinkView[];
  unlinked: { id: string; name: string }[];
  choices: { connection: GoogleConnectionRow; choices: CalendarChoice[]; error: string | null }[];
  problems: GoogleEventExportRow[];
  push: string | null;
}) {
  return (
    <>
      <PageHeader
        title={t.title}
        description={t.description}
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

      <Card title={t.accountsTitle} id={`${t.id}-accounts`}>
        {connections.length === 0 ? <Empty>{t.noAccounts}</Empty> : (
          <Table caption={t.accountsCaption} head={["Account", "Status", "Connected", ""]}>
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
                    <ActionForm action={actions.disconnect} submit={<>Disconnect<span className="sr-only"> {c.googleEmail}</span></>} submitClassName={dangerButtonClass}>
                      <input type="hidden" name="connection_id" value={c.id} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {admin ? (
          <ActionForm action={actions.connect} submit={connections.length ? "Connect another account (or reconnect)" : t.connectButton} className="mt-4">
            <p className="mb-3 text-sm text-slate-700">{t.connectHint}</p>
          </ActionForm>
        ) : (
          <p className="mt-3 text-sm text-slate-600">{t.adminsConnect}</p>
        )}
      </Card>

      <Card title="Linked calendars" id={`${t.id}-links`}>
        <p className="mb-3 text-sm text-slate-700">
          {push ? t.pushOn(push) : t.pushOff}
        </p>
        {links.length === 0 ? <Empty>{t.noLinks}</Empty> : (
          <Table caption={t.linksCaption} head={["Calendar", t.remoteCalendar, "Sync", "Last synced", ""]}>
            {links.map((l) => (
              <tr key={l.id} data-testid={`${t.id}-link`}>
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
                  <p className="mt-1 text-xs text-slate-600">{l.channelExpiresAt ? <>{t.pushUntil} <Time at={l.channelExpiresAt} /></> : "periodic resync"}</p>
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={l.lastSyncedAt} />
                </td>
                <td className="py-2">
                  {admin ? (
                    <div className="flex flex-wrap gap-2">
                      <ActionForm action={actions.syncNow} submit={<>Sync now<span className="sr-only"> {l.calendarName}</span></>} submitClassName={secondaryButtonClass}>
                        <input type="hidden" name="link_id" value={l.id} />
                      </ActionForm>
                      <ActionForm action={actions.unlink} submit={<>Unlink<span className="sr-only"> {l.calendarName}</span></>} submitClassName={dangerButtonClass}>
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
                  <ActionForm action={actions.link} submit="Link" className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
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
                    <Field label={t.remoteCalendar} name={`${t.fieldPrefix}-${connection.id}`}>
                      <select id={`${t.fieldPrefix}-${connection.id}`} name={t.fieldName} required className={inputClass}>
                        {gcals.map((g) => (
                          <option key={g.id} value={g.id}>
                            {g.name}
                            {g.primary ? ` (${t.primaryWord})` : ""}
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

      <Card title="Export problems" id={`${t.id}-export-problems`}>
        {problems.length === 0 ? <Empty>{t.noProblems}</Empty> : (
          <Table caption={t.problemsCaption} head={["Event", "Operation", "Status", "Last error", ""]}>
            {problems.map((p) => (
              <tr key={p.id}>
                <td className="py-2 pr-4 text-xs">
                  <code className="font-mono">{p.calendarEventId}</code>
                  <br />
                  hold <code className="font-mono">{p.holdId ?? "—"}</code>
                </td>
                <td className="py-2 pr-4 text-xs">{p.desired === "present" ? t.createIn : t.removeFrom}</td>
                <td className="py-2 pr-4 text-xs">
                  {p.status === "failed" ? <Badge tone="red">failed after {p.attempts} attempts</Badge> : <Badge tone="amber">retrying ({p.attempts} so far)</Badge>}
                  {p.nextAttemptAt && p.status === "pending" ? <p className="mt-1">next <Time at={p.nextAttemptAt} /></p> : null}
                </td>
                <td className="py-2 pr-4 text-xs text-red-800">{p.lastError}</td>
                <td className="py-2">
                  {admin && p.status === "failed" ? (
                    <ActionForm action={actions.retry} submit={<>Retry<span className="sr-only"> {p.calendarEventId}</span></>} submitClassName={secondaryButtonClass}>
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
