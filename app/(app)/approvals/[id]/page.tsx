import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listMembers, memberActor } from "@/lib/domains/members/memberships";
import { getApproval } from "@/lib/domains/approvals/approvals";
import { decisionPasskeys } from "@/lib/domains/approvals/decide-with-passkey";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { AppError } from "@/lib/platform/errors";
import { Badge, Card, PageHeader, linkClass } from "../../_components/ui";
import { Time } from "../../_components/time";
import { ApprovalAction } from "../approval-action";
import { BoundHolds } from "../bound-holds";
import { APPROVAL_TONE } from "../approval-tone";

export const metadata: Metadata = { title: "Approval" };

/**
 * One approval, decided or not: what was asked (summary, evidence, the action in full and, for
 * held mail, the message byte for byte), who decided, whether it was spent, and its receipt.
 * Everything is rendered as text (React escapes it), so HTML or script in it is shown, never run.
 */
export default async function ApprovalPage({ params }: { params: Promise<{ id: string }> }) {
  const { member, workspace } = await requireMember();
  const { id } = await params;
  const [a, people, agents] = await Promise.all([
    getApproval(memberActor(member), id).catch((err) => {
      if (err instanceof AppError && err.code === "not_found") notFound();
      throw err;
    }),
    listMembers(workspace.id),
    listAgents(workspace.id, { limit: 100 }),
  ]);
  const who = new Map(people.map((p) => [p.id, p.name ?? p.email]));
  const agentName = new Map(agents.items.map((g) => [g.id, g.name]));
  const passkeys = await decisionPasskeys(workspace.id, a.id);
  return (
    <>
      <PageHeader title={a.summary} description={<code className="font-mono text-xs">{a.id}</code>}>
        <nav aria-label="Approvals" className="flex gap-4">
          <Link href="/approvals" className={linkClass}>
            Queue
          </Link>
          <Link href="/approvals/history" className={linkClass}>
            History
          </Link>
        </nav>
      </PageHeader>
      <Card>
        <article aria-label="Approval" data-testid="approval-detail">
          <div className="flex flex-wrap gap-1.5">
            <Badge tone={APPROVAL_TONE[a.status]}>{a.status}</Badge>
            {a.consumed ? <Badge tone="slate">spent</Badge> : null}
            <Badge tone="slate">
              {a.approvals} of {a.required_approvals} approval{a.required_approvals === 1 ? "" : "s"}
            </Badge>
          </div>
          <dl className="mt-3 grid gap-x-6 gap-y-1 text-sm text-slate-700 sm:grid-cols-2">
            <Row label="Agent">{a.agent_id ? (agentName.get(a.agent_id) ?? a.agent_id) : "workspace key"}</Row>
            {a.action_class ? (
              <Row label="Action class">
                {a.action_class}
                {a.amount !== null ? ` · ${a.amount} ${a.currency ?? ""}` : ""}
              </Row>
            ) : null}
            <Row label="Asked">
              <Time at={new Date(a.created_at)} />
            </Row>
            <Row label="Expires">
              <Time at={new Date(a.expires_at)} />
            </Row>
            <Row label="Decided">{a.decided_at ? <Time at={new Date(a.decided_at)} /> : "—"}</Row>
            <Row label="Spent">{a.consumed_at ? <Time at={new Date(a.consumed_at)} /> : "no"}</Row>
          </dl>
          <h2 className="mt-4 text-sm font-medium text-slate-800">Evidence</h2>
          <pre className="mt-1 max-h-80 overflow-auto rounded-md bg-slate-50 p-3 text-xs text-slate-800" data-testid="evidence">
            {JSON.stringify(a.evidence, null, 2)}
          </pre>
          <ApprovalAction approval={a} workspaceId={workspace.id} showMail={hasRole(member.role, "approver")} />
          <BoundHolds
            workspaceId={workspace.id}
            holds={a.holds}
            onApprove={a.on_approve}
            pending={a.status === "pending"}
            approval={hasRole(member.role, "approver") ? { id: a.id, expires_at: a.expires_at } : undefined}
          />
          <h2 className="mt-4 text-sm font-medium text-slate-800">Decisions</h2>
          {a.decisions.length ? (
            <ul className="mt-1 text-sm text-slate-700" data-testid="decisions">
              {a.decisions.map((d) => (
                <li key={d.member_id}>
                  {who.get(d.member_id) ?? `${d.member_id} (removed member)`} {d.decision === "approve" ? "approved" : "denied"} <Time at={new Date(d.decided_at)} />
                  {d.note ? `: “${d.note}”` : ""}{" "}
                  {passkeys.has(d.member_id) ? (
                    <span title={`Passkey ${passkeys.get(d.member_id)}`}>
                      <Badge tone="green">confirmed with a passkey</Badge>
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-1 text-sm text-slate-600">None yet.</p>
          )}
          {a.receipt ? (
            <details className="mt-4">
              <summary className="cursor-pointer text-sm font-medium text-slate-800">Signed receipt (compact JWS)</summary>
              <pre className="mt-1 whitespace-pre-wrap break-all rounded-md bg-slate-50 p-3 text-xs text-slate-800" data-testid="receipt">
                {a.receipt}
              </pre>
              <p className="mt-1 text-xs text-slate-600">
                Verify it offline against <code>/.well-known/jwks.json?workspace_id={workspace.id}</code>.
              </p>
            </details>
          ) : null}
        </article>
      </Card>
    </>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="inline font-medium">{label}: </dt>
      <dd className="inline">{children}</dd>
    </div>
  );
}
