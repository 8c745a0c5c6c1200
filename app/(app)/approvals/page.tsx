import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listMembers, memberActor } from "@/lib/domains/members/memberships";
import { listApprovals } from "@/lib/domains/approvals/approvals";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { Badge, Card, Empty, Field, PageHeader, dangerButtonClass, inputClass, linkClass } from "../_components/ui";
import { LiveRefresh } from "../_components/live-refresh";
import { livePosition } from "@/lib/domains/events/live-channel";
import { Time } from "../_components/time";
import { DecideForm } from "./decide-form";
import { ApprovalAction } from "./approval-action";
import { BoundHolds } from "./bound-holds";

export const metadata: Metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const { member, workspace } = await requireMember();
  // Before the data: whatever commits after this reaches the open page (LiveRefresh).
  const from = await livePosition(workspace.id);
  const [pending, people, agents] = await Promise.all([
    listApprovals(memberActor(member), { limit: 100, status: "pending" }),
    listMembers(workspace.id),
    listAgents(workspace.id, { limit: 100 }),
  ]);
  const who = new Map(people.map((p) => [p.id, p.name ?? p.email]));
  const agentName = new Map(agents.items.map((a) => [a.id, a.name]));
  const canDecide = hasRole(member.role, "approver");
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Actions your agents want to take, waiting for a signed-in human. Oldest waits first. Each decision asks for one of your passkeys (with your fingerprint, face or PIN)."
      >
        <nav aria-label="Approvals" className="flex gap-4">
          <Link href="/approvals/history" className={linkClass}>
            History
          </Link>
          <Link href="/approvals/policies" className={linkClass}>
            Policies
          </Link>
        </nav>
      </PageHeader>
      <LiveRefresh types={["approval.requested", "approval.resolved"]} label="new and decided requests" from={from} />
      {!canDecide ? (
        <p className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">Your role ({member.role}) can read approvals but not decide them.</p>
      ) : null}
      {pending.items.length === 0 ? (
        <Card>
          <Empty>Nothing is waiting for a decision.</Empty>
        </Card>
      ) : (
        [...pending.items].reverse().map((a) => {
          const mine = a.decisions.find((d) => d.member_id === member.id);
          return (
            <Card key={a.id}>
              <article aria-labelledby={`${a.id}-summary`} data-testid="pending-approval">
                <div className="flex flex-wrap items-start justify-between gap-2">
                  <h2 id={`${a.id}-summary`} className="text-base font-semibold text-slate-900">
                    <Link href={`/approvals/${a.id}`} className="hover:underline">
                      {a.summary}
                    </Link>
                  </h2>
                  <span className="flex flex-wrap gap-1.5">
                    {a.escalated_at ? <Badge tone="red">escalated</Badge> : null}
                    <Badge tone="amber">
                      {a.approvals} of {a.required_approvals} approval{a.required_approvals === 1 ? "" : "s"}
                    </Badge>
                  </span>
                </div>
                <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm text-slate-700 sm:grid-cols-2">
                  <div>
                    <dt className="inline font-medium">Agent: </dt>
                    <dd className="inline">{a.agent_id ? (agentName.get(a.agent_id) ?? a.agent_id) : "workspace key"}</dd>
                  </div>
                  {a.action_class ? (
                    <div>
                      <dt className="inline font-medium">Action: </dt>
                      <dd className="inline">
                        {a.action_class}
                        {a.amount !== null ? ` · ${a.amount} ${a.currency ?? ""}` : ""}
                      </dd>
                    </div>
                  ) : null}
                  <div>
                    <dt className="inline font-medium">Asked: </dt>
                    <dd className="inline">
                      <Time at={new Date(a.created_at)} />
                    </dd>
                  </div>
                  <div>
                    <dt className="inline font-medium">Expires: </dt>
                    <dd className="inline">
                      <Time at={new Date(a.expires_at)} />
                    </dd>
                  </div>
                </dl>
                <h3 className="mt-3 text-sm font-medium text-slate-800">Evidence</h3>
                {/* Rendered as text: React escapes it, so HTML or script in evidence is shown, never run. */}
                <pre className="mt-1 max-h-80 overflow-auto rounded-md bg-slate-50 p-3 text-xs text-slate-800" data-testid="evidence">
                  {JSON.stringify(a.evidence, null, 2)}
                </pre>
                <ApprovalAction approval={a} workspaceId={workspace.id} showMail={canDecide} />
                <BoundHolds workspaceId={workspace.id} holds={a.holds} onApprove={a.on_approve} pending />
                {a.decisions.length ? (
                  <ul className="mt-3 text-sm text-slate-700">
                    {a.decisions.map((d) => (
                      <li key={d.member_id}>
                        {who.get(d.member_id) ?? d.member_id} {d.decision === "approve" ? "approved" : "denied"}
                        {d.note ? `: “${d.note}”` : ""}
                      </li>
                    ))}
                  </ul>
                ) : null}
                {canDecide && !mine ? (
                  <DecideForm approvalId={a.id} decision="approve" submit="Approve" className="mt-4 grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end">
                    <Field label="Note (optional)" name={`note-${a.id}`}>
                      <input id={`note-${a.id}`} name="note" maxLength={2000} className={inputClass} placeholder="Why you approve" />
                    </Field>
                  </DecideForm>
                ) : null}
                {canDecide && !mine ? (
                  <DecideForm approvalId={a.id} decision="deny" submit="Deny" submitClassName={dangerButtonClass} className="mt-3 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
                    <Field label="Reason (required to deny)" name={`deny-note-${a.id}`}>
                      <input id={`deny-note-${a.id}`} name="note" required maxLength={2000} className={inputClass} placeholder="Why you deny" />
                    </Field>
                  </DecideForm>
                ) : null}
                {mine ? <p className="mt-3 text-sm text-slate-600">You have decided; it waits for other members.</p> : null}
              </article>
            </Card>
          );
        })
      )}
    </>
  );
}
