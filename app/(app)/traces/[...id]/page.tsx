import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { AppError } from "@/lib/platform/errors";
import { TRACE_ID_SHAPE } from "@/lib/platform/api/input-guards";
import { buildTrace } from "@/lib/domains/traces/build-trace";
import type { TraceItem } from "@/lib/domains/traces/trace-item";
import { handoffBodiesOf } from "@/lib/domains/handoffs/read-handoffs";
import type { HandoffStatus } from "@/db/schema";
import { Badge, Card, PageHeader, linkClass } from "../../_components/ui";
import { STATUS_TONE } from "../../handoffs/status-tone";

export const metadata: Metadata = { title: "Trace" };

const KIND_LABEL: Record<string, string> = { handoff: "Handoff", audit_entry: "Audit", message: "Mail", hold: "Hold", lease: "Lease", approval: "Approval" };

/** Where a record of the timeline is shown in full; kinds without a page link to nothing. */
function recordHref(i: TraceItem): string | null {
  const d = i.data as { resource?: { id?: string }; inbox_id?: string; thread_id?: string; calendar_ids?: string[] };
  switch (i.kind) {
    case "handoff":
      return `#${i.id}`;
    case "audit_entry":
      return `/audit?resource_id=${encodeURIComponent(d.resource?.id ?? i.id)}`;
    case "message":
      return `/inboxes/${d.inbox_id}/threads/${d.thread_id}#${i.id}`;
    case "hold":
      return d.calendar_ids?.[0] ? `/calendars/${d.calendar_ids[0]}` : null;
    case "lease":
      return `/leases`;
    case "approval":
      return `/approvals/history`;
    default:
      return null;
  }
}

type NoteSummary = {
  note?: string;
  model?: { name: string; prompt_version?: string; input_tokens?: number; output_tokens?: number };
  trigger?: unknown;
  context?: unknown;
  outside_call?: unknown;
};

const time = (iso: string) => `${iso.replace("T", " ").slice(0, 19)} UTC`;
const json = (v: unknown) => JSON.stringify(v, null, 2);

export default async function TracePage({ params }: { params: Promise<{ id: string[] }> }) {
  const { workspace } = await requireMember();
  const id = (await params).id.map(decodeURIComponent).join("/");
  if (!TRACE_ID_SHAPE.test(id)) notFound();
  const trace = await buildTrace({ workspaceId: workspace.id, agentId: null }, id).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  const [agents, bodies] = await Promise.all([listAgents(workspace.id, { limit: 100 }), handoffBodiesOf(workspace.id, trace.handoffs.map((h) => h.id))]);
  const name = new Map(agents.items.map((a) => [a.id, a.name]));
  const agent = (a: string | null) => (a ? (name.get(a) ?? a) : "system");
  const handoffType = new Map(trace.handoffs.map((h) => [h.id, h.type]));
  // People read names: a handoff's agents by name, a handoff's entries with its type.
  const timelineTitle = (i: TraceItem) => {
    const d = i.data as { type?: string; from_agent_id?: string; to_agent_id?: string; resource?: { type?: string; id?: string } };
    if (i.kind === "handoff") return `Handoff ${d.type}: ${agent(d.from_agent_id ?? null)} → ${agent(d.to_agent_id ?? null)}`;
    if (i.kind === "audit_entry" && d.resource?.type === "handoff" && handoffType.has(d.resource.id ?? "")) return `${i.title} (${handoffType.get(d.resource.id!)})`;
    return i.title;
  };
  const notes = trace.timeline.filter((i) => i.kind === "audit_entry" && String(i.data.action).startsWith("agent."));

  return (
    <>
      <PageHeader
        title={`Trace ${id}`}
        description={`${trace.handoffs.length} handoff${trace.handoffs.length === 1 ? "" : "s"}, ${trace.timeline.length} records in time order${trace.truncated ? " (cut at 500 of a kind)" : ""}.`}
      >
        <Link href="/handoffs" className={linkClass}>
          All handoffs
        </Link>
      </PageHeader>
      {trace.dead_handoffs.length > 0 ? (
        <p role="alert" className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid="trace-dead">
          {trace.dead_handoffs.length} dead handoff{trace.dead_handoffs.length === 1 ? "" : "s"} on this trace:{" "}
          {trace.dead_handoffs.map((d) => (
            <a key={d} href={`#${d}`} className={`${linkClass} mr-2`}>
              {d}
            </a>
          ))}
        </p>
      ) : null}
      <Card title="Handoff tree" id="tree">
        {trace.handoffs.length === 0 ? (
          <p className="text-sm text-slate-600">No handoffs on this trace.</p>
        ) : (
          <ol className="space-y-2" data-testid="handoff-tree">
            {trace.handoffs.map((h) => (
              <li
                key={h.id}
                id={h.id}
                style={{ marginLeft: `${Math.min(h.depth, 6) * 1.25}rem` }}
                className={`rounded-md border px-3 py-2 text-sm ${h.status === "dead" ? "border-red-400 bg-red-50" : "border-slate-200 bg-white"}`}
                data-status={h.status}
              >
                <div className="flex flex-wrap items-center gap-2">
                  {h.depth > 0 ? <span aria-hidden className="text-slate-400">↳</span> : null}
                  <code className="font-mono font-semibold text-slate-900">{h.type}</code>
                  <Badge tone={STATUS_TONE[h.status as HandoffStatus]}>{h.status}</Badge>
                  <span className="text-slate-700">
                    {agent(h.from_agent_id)} → {agent(h.to_agent_id)}
                  </span>
                  <span className="text-xs text-slate-600">
                    attempt {h.attempt}/{h.max_attempts}
                    {h.claim?.worker ? ` · worker ${h.claim.worker}` : ""}
                  </span>
                </div>
                {h.last_error ? (
                  <p className="mt-1 text-xs text-red-800">
                    Last error (attempt {h.last_error.attempt}): {h.last_error.message}
                  </p>
                ) : null}
                <details className="mt-1 text-xs">
                  <summary className="cursor-pointer text-slate-700">
                    <code className="font-mono">{h.id}</code> · body{h.status === "completed" ? " and result" : ""}
                  </summary>
                  <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2">{json(bodies.get(h.id) ?? null)}</pre>
                </details>
              </li>
            ))}
          </ol>
        )}
      </Card>
      {notes.length > 0 ? (
        <Card title="Why the agents acted" id="notes">
          <ul className="space-y-2 text-sm">
            {notes.map((n) => {
              const s = n.data.summary as NoteSummary;
              return (
                <li key={n.id} className="rounded-md border border-indigo-200 bg-indigo-50 px-3 py-2">
                  <p className="text-slate-900">
                    <strong>{agent(n.agent_id)}</strong> <code className="font-mono text-xs">{String(n.data.action)}</code>: {String(s.note ?? "")}
                  </p>
                  {s.model ? (
                    <p className="text-xs text-slate-700">
                      model {s.model.name}
                      {s.model.prompt_version ? `, prompt ${s.model.prompt_version}` : ""}
                      {s.model.input_tokens !== undefined ? `, ${s.model.input_tokens} in / ${s.model.output_tokens ?? 0} out tokens` : ""}
                    </p>
                  ) : null}
                  {s.trigger !== undefined || s.context !== undefined || s.outside_call !== undefined ? (
                    <details className="text-xs">
                      <summary className="cursor-pointer text-slate-700">Trigger, context and outside call</summary>
                      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-white p-2">
                        {json({ trigger: s.trigger, context: s.context, outside_call: s.outside_call })}
                      </pre>
                    </details>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </Card>
      ) : null}
      <Card title="Timeline" id="timeline">
        <ol className="relative space-y-1 border-l border-slate-200 pl-4 text-sm" data-testid="trace-timeline">
          {trace.timeline.map((i) => {
            const href = recordHref(i);
            const title = timelineTitle(i);
            const dead = i.status === "dead" || i.data.action === "handoff.dead";
            return (
              <li key={`${i.kind}:${i.id}`} className={`flex flex-wrap items-baseline gap-x-2 rounded px-1 py-0.5 ${dead ? "bg-red-50 text-red-900" : ""}`}>
                <time dateTime={i.at} className="font-mono text-xs text-slate-600">
                  {time(i.at)}
                </time>
                <Badge tone={dead ? "red" : i.kind === "handoff" ? "indigo" : "slate"}>{KIND_LABEL[i.kind] ?? i.kind}</Badge>
                <span className="text-xs text-slate-700">{agent(i.agent_id)}</span>
                {href ? (
                  <a href={href} className={`${linkClass} break-all`}>
                    {title}
                  </a>
                ) : (
                  <span className="break-all">{title}</span>
                )}
              </li>
            );
          })}
        </ol>
      </Card>
    </>
  );
}
