import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { listKeys, unusedKeys } from "@/lib/domains/api-keys/list-keys";
import { listAudit } from "@/lib/domains/audit/list-audit";
import { verifyChain } from "@/lib/platform/audit/verify-chain";
import { listPendingInvitations } from "@/lib/domains/invitations/find-invitation";
import { listPasskeys } from "@/lib/domains/passkeys/passkeys";
import { countDeadHandoffs } from "@/lib/domains/handoffs/read-handoffs";
import { countEventsNeedingAttention } from "@/lib/domains/calendars/attention";
import { countOpenOrphans } from "@/lib/domains/calendar-sync/orphans";
import { Badge, Card, PageHeader, linkClass } from "../_components/ui";
import { LiveRefresh } from "../_components/live-refresh";
import { livePosition } from "@/lib/domains/events/live-channel";
import { ActivityCharts } from "./activity-charts";
import { dailyActivity } from "@/lib/domains/overview/daily-activity";
import { viewerTimeZone } from "@/lib/domains/auth/viewer-time-zone";
import { EVENT_TYPES } from "@/lib/platform/events/event-type-list";
import { Time } from "../_components/time";

export const metadata: Metadata = { title: "Overview" };

const STALE_KEY_MS = 30 * 24 * 60 * 60 * 1000;

export default async function OverviewPage() {
  const { user, member, workspace } = await requireMember();
  // Before the data: whatever commits after this reaches the open page (LiveRefresh).
  const from = await livePosition(workspace.id);
  const [agents, keys, chain, invitations, passkeys, recent, deadHandoffs, changedEvents, orphans] = await Promise.all([
    listAgents(workspace.id, { limit: 100 }),
    listKeys(workspace.id),
    verifyChain(workspace.id),
    listPendingInvitations(workspace.id),
    listPasskeys(user.id),
    listAudit(workspace.id, { limit: 5 }),
    countDeadHandoffs(workspace.id),
    countEventsNeedingAttention(workspace.id),
    countOpenOrphans(workspace.id),
  ]);
  const active = keys.filter((k) => !k.revokedAt);
  const unused = unusedKeys(active, STALE_KEY_MS);
  const { zone } = await viewerTimeZone();
  const activity = await dailyActivity(workspace.id, zone);

  const attention: { text: string; href: string; tone: "red" | "amber" }[] = [];
  if (!chain.valid) attention.push({ text: `The audit chain is broken at entry ${chain.first_broken?.seq}.`, href: "/audit", tone: "red" });
  if (deadHandoffs > 0) attention.push({ text: `${deadHandoffs} handoff${deadHandoffs === 1 ? " is" : "s are"} dead: an agent gave up on the work.`, href: "/handoffs?status=dead", tone: "red" });
  // Committed events a person moved, cancelled, declined or booked over in Google or Outlook (issue #32), one line a calendar.
  for (const c of changedEvents.calendars)
    attention.push({ text: `${c.count} booked event${c.count === 1 ? "" : "s"} on ${c.name} ${c.count === 1 ? "was" : "were"} changed in the linked calendar after booking.`, href: `/calendars/${c.id}#attention`, tone: "red" });
  // Events in a linked calendar tagged as AgentDraft's that it does not stand behind (the drift check's orphans).
  for (const c of orphans)
    attention.push({ text: `${c.count} unexplained event${c.count === 1 ? "" : "s"} in the calendar linked to ${c.name} carr${c.count === 1 ? "ies" : "y"} AgentDraft's tag.`, href: `/calendars/${c.id}#orphans`, tone: "amber" });
  if (passkeys.length === 1) attention.push({ text: "You have one passkey. Add a second one so a lost device does not lock you out.", href: "/settings", tone: "amber" });
  if (agents.items.length === 0) attention.push({ text: "No agents yet. Create one to give it API keys.", href: "/agents", tone: "amber" });
  if (unused.length > 0) attention.push({ text: `${unused.length} active API key${unused.length === 1 ? " has" : "s have"} not been used in 30 days. Revoke keys you do not need.`, href: "/keys", tone: "amber" });
  if (invitations.length > 0) attention.push({ text: `${invitations.length} invitation${invitations.length === 1 ? " is" : "s are"} waiting to be accepted.`, href: "/members", tone: "amber" });

  return (
    <>
      <PageHeader title="Overview" description={`Welcome, ${user.name ?? user.email}. You are ${member.role === "owner" ? "an owner" : `a${member.role === "admin" || member.role === "approver" ? "n" : ""} ${member.role}`} of ${workspace.name}.`} />
      <LiveRefresh types={[...EVENT_TYPES]} label="counts and charts" from={from} />
      <Card title="Needs attention" id="attention">
        {attention.length === 0 ? (
          <p className="text-sm text-slate-700">Nothing needs your attention.</p>
        ) : (
          <ul className="space-y-2">
            {attention.map((a) => (
              <li key={a.text} className="flex flex-wrap items-center gap-2 text-sm text-slate-800">
                <Badge tone={a.tone}>{a.tone === "red" ? "Urgent" : "To do"}</Badge>
                <span>{a.text}</span>
                <Link className={linkClass} href={a.href}>
                  Go
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <dl className="mb-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {[
          ["Agents", agents.items.length + (agents.hasMore ? "+" : ""), "/agents"],
          ["Active API keys", active.length, "/keys"],
          ["Audit entries", chain.head.seq, "/audit"],
          ["Events needing attention", changedEvents.total, changedEvents.calendars.length === 1 ? `/calendars/${changedEvents.calendars[0]!.id}#attention` : "/calendars"],
        ].map(([label, value, href]) => (
          <div key={label} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
            <dt className="text-sm text-slate-600">
              <Link className={linkClass} href={String(href)}>
                {label}
              </Link>
            </dt>
            <dd className="mt-1 text-2xl font-semibold text-slate-900">{value}</dd>
          </div>
        ))}
      </dl>
      <ActivityCharts days={activity} zone={zone} />
      <Card title="Recent activity" id="recent">
        <ul className="divide-y divide-slate-100 text-sm">
          {recent.items.map((e) => (
            <li key={e.id} className="flex flex-wrap justify-between gap-2 py-2">
              <span>
                <code className="font-mono text-slate-900">{e.action}</code> <span className="text-slate-600">on {e.resourceId}</span>
              </span>
              <span className="text-slate-600">
                <Time at={e.at} />
              </span>
            </li>
          ))}
        </ul>
        <p className="mt-3 text-sm">
          <Link className={linkClass} href="/audit">
            Full audit trail
          </Link>{" "}
          · chain {chain.valid ? <Badge tone="green">verified</Badge> : <Badge tone="red">broken</Badge>}
        </p>
      </Card>
    </>
  );
}
