import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listMembers, memberActor } from "@/lib/domains/members/memberships";
import { listApprovals } from "@/lib/domains/approvals/approvals";
import { paginationQuery } from "@/lib/platform/api/pagination";
import { Badge, Card, Empty, PageHeader, Table, linkClass } from "../../_components/ui";
import { Time } from "../../_components/time";
import { APPROVAL_TONE } from "../approval-tone";

export const metadata: Metadata = { title: "Approval history" };


export default async function ApprovalHistoryPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { member, workspace } = await requireMember();
  const page = paginationQuery.safeParse({ limit: 50, starting_after: (await searchParams).starting_after });
  const [all, people] = await Promise.all([
    listApprovals(memberActor(member), page.success ? page.data : { limit: 50 }),
    listMembers(workspace.id),
  ]);
  const who = new Map(people.map((p) => [p.id, p.name ?? p.email]));
  const next = all.hasMore ? `/approvals/history?starting_after=${all.items.at(-1)!.id}` : null;
  return (
    <>
      <PageHeader title="Approval history" description="Every approval, newest first, with who decided and the signed receipt.">
        <Link href="/approvals" className={linkClass}>
          Queue
        </Link>
      </PageHeader>
      <Card>
        {all.items.length === 0 ? (
          <Empty>No approvals yet.</Empty>
        ) : (
          <Table caption="Approvals, newest first" head={["Summary", "Status", "Decided by", "Asked", "Decided"]}>
            {all.items.map((a) => (
              <tr key={a.id} className="align-top">
                <td className="py-2 pr-4 text-sm">
                  <Link href={`/approvals/${a.id}`} className={`${linkClass} text-slate-900`}>
                    {a.summary}
                  </Link>
                  <div>
                    <code className="font-mono text-xs text-slate-600">{a.id}</code>
                  </div>
                  {a.action ? (
                    <details className="mt-1">
                      <summary className="cursor-pointer text-xs text-slate-600">Action {a.action_class ? `(${a.action_class})` : ""}</summary>
                      {/* Rendered as text: React escapes it, so HTML or script in an action is shown, never run. */}
                      <pre className="mt-1 max-h-60 overflow-auto rounded bg-slate-50 p-2 text-xs text-slate-900" data-testid="history-action">
                        {JSON.stringify(a.action, null, 2)}
                      </pre>
                      <p className="break-all text-xs text-slate-500">sha256 {a.action_sha256}</p>
                    </details>
                  ) : null}
                  {a.holds.length ? (
                    <ul className="mt-1 text-xs text-slate-700" aria-label="Bound holds">
                      {a.holds.map((h) => (
                        <li key={h.hold_id}>
                          hold <code className="font-mono">{h.hold_id}</code>: {h.status}
                          {h.preempted_by ? ` by a priority-${h.preempted_by.priority} hold` : ""}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </td>
                <td className="py-2 pr-4">
                  <Badge tone={APPROVAL_TONE[a.status]}>{a.status}</Badge>
                  {a.consumed ? (
                    <div className="mt-1">
                      <Badge tone="slate">spent</Badge>
                    </div>
                  ) : null}
                </td>
                <td className="py-2 pr-4 text-xs text-slate-700">
                  {a.decisions.map((d) => (
                    <div key={d.member_id}>
                      {who.get(d.member_id) ?? `${d.member_id} (removed member)`}: {d.decision}
                      {d.note ? ` (“${d.note}”)` : ""}
                    </div>
                  ))}
                </td>
                <td className="whitespace-nowrap py-2 pr-4 text-xs">
                  <Time at={new Date(a.created_at)} />
                </td>
                <td className="whitespace-nowrap py-2 pr-4 text-xs">{a.decided_at ? <Time at={new Date(a.decided_at)} /> : "—"}</td>
              </tr>
            ))}
          </Table>
        )}
        {next ? (
          <p className="mt-4">
            <Link href={next} className={linkClass}>
              Older approvals
            </Link>
          </p>
        ) : null}
      </Card>
    </>
  );
}
