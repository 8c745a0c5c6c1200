import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listAllChannels } from "@/lib/domains/notifications/channels";
import { channelStatus } from "@/lib/domains/notifications/serialize";
import { formatClock } from "@/lib/domains/notifications/routing";
import type { NotificationChannelRow } from "@/db/schema";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, Field, PageHeader, dangerButtonClass, inputClass, linkClass, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { RuleFields, TimeZones, TYPE_LABELS } from "./rule-fields";
import { createChannelAction, deleteChannelAction, testChannelAction, toggleChannelAction, updateChannelAction } from "./actions";

export const metadata: Metadata = { title: "Notification channels" };

const KIND_NAMES = { slack: "Slack", teams: "Microsoft Teams", discord: "Discord" } as const;
const STATUS_BADGE = {
  healthy: <Badge tone="green">healthy</Badge>,
  failing: <Badge tone="amber">failing, retrying</Badge>,
  failed: <Badge tone="red">failed</Badge>,
  disabled: <Badge>disabled</Badge>,
};

function rulesOf(c: NotificationChannelRow): string {
  const parts = [c.notificationTypes.map((t) => TYPE_LABELS[t as keyof typeof TYPE_LABELS] ?? t).join(", ")];
  if (c.actionClasses?.length) parts.push(`only ${c.actionClasses.join(", ")}`);
  if (c.minAmount !== null) parts.push(`from ${Number(c.minAmount)}`);
  if (c.quietStartMinute !== null) parts.push(`quiet ${formatClock(c.quietStartMinute)}–${formatClock(c.quietEndMinute)} ${c.timeZone}`);
  if (c.includeEvidence) parts.push("with evidence");
  if (c.dmApprovers) parts.push("and direct messages to approvers");
  return parts.join(" · ");
}

function ChannelRow({ c, admin }: { c: NotificationChannelRow; admin: boolean }) {
  const status = channelStatus(c);
  return (
    <li className="py-4" data-testid={`channel-${c.name}`}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="font-medium text-slate-900">
            {c.name} <span className="text-sm font-normal text-slate-600">· {KIND_NAMES[c.kind]}{c.slackChannelId ? ` · ${c.slackChannelId}` : ""}</span>
          </p>
          <p className="mt-1 text-sm text-slate-700">{rulesOf(c)}</p>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
            {STATUS_BADGE[status]}
            <span>
              last delivered <Time at={c.lastSuccessAt} />
            </span>
            {c.failingSince ? (
              <span>
                failing since <Time at={c.failingSince} />
              </span>
            ) : null}
          </p>
          {c.lastError ? (
            <p className="mt-1 break-words text-xs text-red-800" data-testid="channel-error">
              Last error: {c.lastError}
            </p>
          ) : null}
        </div>
        {admin ? (
          <div className="flex flex-wrap gap-2">
            <ActionForm action={testChannelAction} submit={<>Send test message<span className="sr-only"> to {c.name}</span></>} submitClassName={secondaryButtonClass}>
              <input type="hidden" name="channel_id" value={c.id} />
            </ActionForm>
            <ActionForm action={toggleChannelAction} submit={<>{c.enabled ? "Disable" : "Enable"}<span className="sr-only"> {c.name}</span></>} submitClassName={secondaryButtonClass}>
              <input type="hidden" name="channel_id" value={c.id} />
              <input type="hidden" name="enabled" value={c.enabled ? "false" : "true"} />
            </ActionForm>
            <ActionForm action={deleteChannelAction} submit={<>Delete<span className="sr-only"> {c.name}</span></>} submitClassName={dangerButtonClass}>
              <input type="hidden" name="channel_id" value={c.id} />
            </ActionForm>
          </div>
        ) : null}
      </div>
      {admin ? (
        <details className="mt-3 rounded-md border border-slate-200 p-3">
          <summary className="cursor-pointer text-sm font-medium text-indigo-800">Edit rules, quiet hours and secret</summary>
          <ActionForm action={updateChannelAction} submit="Save" className="mt-3 grid gap-4 sm:grid-cols-2 sm:items-end">
            <input type="hidden" name="channel_id" value={c.id} />
            <Field label="Name" name={`${c.id}-name`}>
              <input id={`${c.id}-name`} name="name" required maxLength={80} defaultValue={c.name} className={inputClass} />
            </Field>
            {c.kind === "slack" ? (
              <Field label="Slack channel id" name={`${c.id}-slack_channel_id`}>
                <input id={`${c.id}-slack_channel_id`} name="slack_channel_id" required defaultValue={c.slackChannelId ?? ""} className={inputClass} />
              </Field>
            ) : null}
            <Field label={c.kind === "slack" ? "New bot token (empty: keep the saved one)" : "New webhook URL (empty: keep the saved one)"} name={`${c.id}-secret`} hint="The saved secret is never shown again.">
              <input id={`${c.id}-secret`} name="secret" type="password" autoComplete="off" maxLength={2000} className={inputClass} />
            </Field>
            <RuleFields prefix={c.id} channel={c} slack={c.kind === "slack"} />
          </ActionForm>
        </details>
      ) : null}
    </li>
  );
}

function ConnectForm({ kind }: { kind: keyof typeof KIND_NAMES }) {
  const p = `new-${kind}`;
  const secret =
    kind === "slack"
      ? { label: "Bot token", placeholder: "xoxb-…", hint: "OAuth & Permissions → Bot User OAuth Token (scopes chat:write, and users:read.email for direct messages). Checked with Slack, then stored encrypted; never shown again." }
      : kind === "teams"
        ? { label: "Incoming webhook URL", placeholder: "https://….webhook.office.com/… or a Workflows URL", hint: "From a Teams channel's Workflows (“Post to a channel when a webhook request is received”). Stored encrypted; never shown again." }
        : { label: "Webhook URL", placeholder: "https://discord.com/api/webhooks/…", hint: "Server settings → Integrations → Webhooks → Copy Webhook URL. Stored encrypted; never shown again." };
  return (
    <details className="rounded-md border border-slate-200 p-3" data-testid={`connect-${kind}`}>
      <summary className="cursor-pointer text-sm font-semibold text-slate-900">Connect {KIND_NAMES[kind]}</summary>
      <ActionForm action={createChannelAction} submit={`Connect ${KIND_NAMES[kind]}`} className="mt-3 grid gap-4 sm:grid-cols-2 sm:items-end">
        <input type="hidden" name="kind" value={kind} />
        <Field label="Name" name={`${p}-name`}>
          <input id={`${p}-name`} name="name" required maxLength={80} placeholder={kind === "slack" ? "#approvals" : "Ops"} className={inputClass} />
        </Field>
        {kind === "slack" ? (
          <Field label="Slack channel id" name={`${p}-slack_channel_id`} hint="Channel details → About → Channel ID; invite the app to the channel first.">
            <input id={`${p}-slack_channel_id`} name="slack_channel_id" required placeholder="C0123456789" className={inputClass} />
          </Field>
        ) : null}
        <Field label={secret.label} name={`${p}-secret`} hint={secret.hint}>
          <input id={`${p}-secret`} name="secret" type="password" autoComplete="off" required maxLength={2000} placeholder={secret.placeholder} className={inputClass} />
        </Field>
        <RuleFields prefix={p} slack={kind === "slack"} />
      </ActionForm>
    </details>
  );
}

export default async function ChannelsPage() {
  const { member, workspace } = await requireMember();
  const admin = hasRole(member.role, "admin");
  const channels = await listAllChannels(workspace.id);
  return (
    <>
      <PageHeader
        title="Notification channels"
        description="Approval requests, escalations, decisions, disabled webhook endpoints and calendar sync failures, posted where your team works. Every message links to the queue; decisions are still made signed in here."
      >
        <Link href="/docs/notification-channels" className={linkClass}>
          How to connect
        </Link>
      </PageHeader>
      <Card title="Channels" id="channels">
        {channels.length === 0 ? (
          <Empty>No channel yet: requests reach people only by email.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {channels.map((c) => (
              <ChannelRow key={c.id} c={c} admin={admin} />
            ))}
          </ul>
        )}
      </Card>
      {admin ? (
        <Card title="Connect a channel" id="connect">
          <p className="mb-3 text-sm text-slate-700">
            Messages never carry an approve button and, unless you turn it on, never the evidence. Escalations can also go to a channel: tick “Approval escalated” here or choose the channels under{" "}
            <Link href="/approvals/policies#escalation" className={linkClass}>
              Approvals → Policies
            </Link>
            .
          </p>
          <div className="grid gap-3">
            <ConnectForm kind="slack" />
            <ConnectForm kind="teams" />
            <ConnectForm kind="discord" />
          </div>
          <TimeZones />
        </Card>
      ) : (
        <p className="text-sm text-slate-600">Admins and owners connect and edit channels.</p>
      )}
    </>
  );
}
