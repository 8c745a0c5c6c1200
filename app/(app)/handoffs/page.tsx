import type { Metadata } from "next";
import Link from "next/link";
import { HANDOFF_STATUSES } from "@/db/schema";
import { STATUS_TONE } from "./status-tone";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { listHandoffs } from "@/lib/domains/handoffs/read-handoffs";
import { Badge, Card, Empty, Field, PageHeader, Table, buttonClass, inputClass, linkClass } from "../_components/ui";
import { Time } from "../_components/time";

export const metadata: Metadata = { title: "Handoffs" };

export default async function HandoffsPage({ searchParams }: { searchParams: Promise<{ status?: string; starting_after?: string }> }) {
  const { workspace } = await requireMember();
  const given = await searchParams;
  const status = HANDOFF_STATUSES.find((s) => s === given.status);
  const startingAfter = given.starting_after && /^hof_[0-9a-hjkmnp-tv-z]{26}$/.test(given.starting_after) ? given.starting_after : undefined;
  const viewer = { workspaceId: workspace.id, agentId: null };
  const [agents, dead, page] = await Promise.all([
    listAgents(workspace.id, { limit: 100 }),
    status ? null : listHandoffs(viewer, { status: "dead", limit: 20 }),
    listHandoffs(viewer, { status, limit: 25, starting_after: startingAfter }),
  ]);
  const name = new Map(agents.items.map((a) => [a.id, a.name]));
  const agent = (id: string) => name.get(id) ?? id;
  const next = page.hasMore ? new URLSearchParams({ ...(status ? { status } : {}), starting_after: page.items.at(-1)!.id }) : null;

  return (
    <>
      <PageHeader title="Handoffs" description="Work agents hand to each other. A dead handoff used up its attempts or was failed without retry: someone should look at it." />
      {dead && dead.items.length > 0 ? (
        <Card title="Dead handoffs" id="dead">
          <ul className="space-y-2" data-testid="dead-handoffs">
            {dead.items.map((h) => (
              <li key={h.id} className="flex flex-wrap items-center gap-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-950">
                <Badge tone="red">dead</Badge>
                <code className="font-mono">{h.type}</code>
                <span>
                  {agent(h.fromAgentId)} → {agent(h.toAgentId)}, {h.attempt}/{h.maxAttempts} attempts
                  {h.lastError ? `: ${h.lastError.message}` : ""}
                </span>
                <Link className={linkClass} href={`/traces/${encodeURIComponent(h.traceId)}#${h.id}`}>
                  Open trace
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      <Card title="Find a trace" id="find">
        <form method="get" action="/traces" className="flex flex-wrap items-end gap-2">
          <div className="min-w-[16rem] flex-1">
            <Field label="Trace, correlation or handoff id" name="id">
              <input id="id" name="id" required maxLength={128} className={inputClass} placeholder="trace-… or hof_…" />
            </Field>
          </div>
          <button type="submit" className={buttonClass}>
            Open
          </button>
        </form>
      </Card>
      <Card title={status ? `${status[0]!.toUpperCase()}${status.slice(1)} handoffs` : "All handoffs"} id="list">
        <nav aria-label="Filter by status" className="mb-3 flex flex-wrap gap-2 text-sm">
          {[undefined, ...HANDOFF_STATUSES].map((s) => (
            <Link key={s ?? "all"} href={s ? `/handoffs?status=${s}` : "/handoffs"} className={linkClass} aria-current={s === status ? "page" : undefined}>
              {s ?? "all"}
            </Link>
          ))}
        </nav>
        {page.items.length === 0 ? (
          <Empty>No handoffs{status ? ` are ${status}` : " yet"}.</Empty>
        ) : (
          <Table caption="Handoffs, newest first" head={["Created", "Type", "From → to", "Status", "Attempts", "Trace"]}>
            {page.items.map((h) => (
              <tr key={h.id} className={h.status === "dead" ? "bg-red-50 align-top" : "align-top"}>
                <td className="py-2 pr-4 text-xs">
                  <Time at={h.createdAt} />
                </td>
                <td className="py-2 pr-4">
                  <code className="font-mono text-xs">{h.type}</code>
                </td>
                <td className="py-2 pr-4 text-xs">
                  {agent(h.fromAgentId)} → {agent(h.toAgentId)}
                </td>
                <td className="py-2 pr-4">
                  <Badge tone={STATUS_TONE[h.status]}>{h.status}</Badge>
                </td>
                <td className="py-2 pr-4 text-xs">
                  {h.attempt}/{h.maxAttempts}
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Link className={linkClass} href={`/traces/${encodeURIComponent(h.traceId)}#${h.id}`}>
                    {h.traceId}
                  </Link>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {next ? (
          <p className="mt-3 text-sm">
            <Link className={linkClass} href={`/handoffs?${next}`}>
              Older handoffs
            </Link>
          </p>
        ) : null}
      </Card>
    </>
  );
}
