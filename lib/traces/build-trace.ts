import { and, asc, eq, inArray, or } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { auditEntries, handoffs, type AuditEntryRow, type HandoffRow } from "../../db/schema";
import { notFound } from "../errors";
import { hashedFields } from "../audit/chain";
import { sealBeforeRead } from "../audit/seal-chain";
import { serializeHandoff } from "../handoffs/serialize";
import { TRACE_SOURCES } from "./sources";
import type { TraceItem } from "./trace-item";

/** At most this many records of each kind on one trace (the answer says when it was cut). */
export const TRACE_LIMIT = 500;

export type TraceViewer = { workspaceId: string; agentId: string | null };
type Node = ReturnType<typeof serializeHandoff> & { depth: number; children: string[] };

/** The handoffs of a trace: those on it or sharing its correlation id (a handoff's own id names its job). */
async function traceHandoffs(workspaceId: string, id: string): Promise<HandoffRow[]> {
  const q = await queryable();
  const ws = eq(handoffs.workspaceId, workspaceId);
  const seeds = await q
    .select({ correlationId: handoffs.correlationId, traceId: handoffs.traceId })
    .from(handoffs)
    .where(and(ws, or(eq(handoffs.traceId, id), eq(handoffs.correlationId, id), eq(handoffs.id, id))))
    .limit(TRACE_LIMIT);
  if (!seeds.length) return [];
  const correlations = [...new Set(seeds.map((s) => s.correlationId))];
  const traces = [...new Set([id, ...seeds.map((s) => s.traceId)])];
  return q
    .select()
    .from(handoffs)
    .where(and(ws, or(inArray(handoffs.correlationId, correlations), inArray(handoffs.traceId, traces))))
    .orderBy(asc(handoffs.id))
    .limit(TRACE_LIMIT + 1);
}

/** Depth-first, parents before children, siblings oldest first. */
function handoffTree(rows: HandoffRow[]): { roots: string[]; nodes: Node[] } {
  const byId = new Map(rows.map((h) => [h.id, h]));
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const h of rows) {
    if (h.parentId && byId.has(h.parentId)) children.set(h.parentId, [...(children.get(h.parentId) ?? []), h.id]);
    else roots.push(h.id);
  }
  const nodes: Node[] = [];
  const stack = [...roots].reverse().map((id) => ({ id, depth: 0 }));
  while (stack.length) {
    const { id, depth } = stack.pop()!;
    const kids = children.get(id) ?? [];
    nodes.push({ ...serializeHandoff(byId.get(id)!), depth, children: kids });
    for (const k of [...kids].reverse()) stack.push({ id: k, depth: depth + 1 });
  }
  return { roots, nodes };
}

const auditItem = (e: AuditEntryRow): TraceItem => ({
  kind: "audit_entry",
  id: e.id,
  at: e.at.toISOString(),
  agent_id: e.agentId,
  title: typeof e.summary.note === "string" ? `${e.action}: ${e.summary.note}` : e.action,
  status: e.outcome,
  data: { object: "audit_entry", ...hashedFields(e), prev_hash: e.prevHash, hash: e.hash },
});

const handoffItem = (n: Node): TraceItem => ({
  kind: "handoff",
  id: n.id,
  at: n.created_at,
  agent_id: n.from_agent_id,
  title: `Handoff ${n.type}: ${n.from_agent_id} → ${n.to_agent_id}`,
  status: n.status,
  data: n,
});

/**
 * The execution graph of a trace (SPEC §16), named by a trace id, a correlation id or a handoff
 * id: its handoffs as a tree by parent, and every record on it (audit entries, then each source
 * in TRACE_SOURCES) in time order. An agent-bound viewer with a part in the graph sees all its
 * envelopes and their lifecycle entries, and of the other records its own agent's; a trace with
 * nothing it may see is not found.
 */
export async function buildTrace(viewer: TraceViewer, id: string) {
  await sealBeforeRead(viewer.workspaceId);
  const rows = await traceHandoffs(viewer.workspaceId, id);
  const handoffIds = rows.map((h) => h.id);
  const traceIds = [...new Set([id, ...rows.flatMap((h) => [h.traceId, h.correlationId])])];
  const q = await queryable();
  const audit = await q
    .select()
    .from(auditEntries)
    .where(
      and(
        eq(auditEntries.workspaceId, viewer.workspaceId),
        or(
          inArray(auditEntries.traceId, traceIds),
          handoffIds.length ? and(eq(auditEntries.resourceType, "handoff"), inArray(auditEntries.resourceId, handoffIds)) : undefined,
        ),
      ),
    )
    .orderBy(asc(auditEntries.at), asc(auditEntries.position))
    .limit(TRACE_LIMIT + 1);
  const referenced = (type: string) => [...new Set(audit.filter((e) => e.resourceType === type).map((e) => e.resourceId))];
  const ctx = { workspaceId: viewer.workspaceId, traceIds, handoffIds, referenced, limit: TRACE_LIMIT + 1 };
  const collected = await Promise.all(TRACE_SOURCES.map((s) => s.collect(ctx)));

  const seen = (agentId: string | null) => !viewer.agentId || agentId === viewer.agentId;
  // The graph's envelopes (routing and state, never bodies) are shown whole to an agent with a part in it: a fallback worker needs all of it.
  const inGraph = !viewer.agentId || rows.some((h) => h.fromAgentId === viewer.agentId || h.toAgentId === viewer.agentId);
  const visible = inGraph ? rows.slice(0, TRACE_LIMIT) : [];
  const tree = handoffTree(visible);
  const truncated = rows.length > TRACE_LIMIT || audit.length > TRACE_LIMIT || collected.some((c) => c.length > TRACE_LIMIT);
  const items = [
    ...tree.nodes.map(handoffItem),
    // A handoff's own lifecycle entries belong to the graph; other entries to their agent.
    ...audit.slice(0, TRACE_LIMIT).filter((e) => seen(e.agentId) || (inGraph && e.resourceType === "handoff" && handoffIds.includes(e.resourceId))).map(auditItem),
    ...collected.flatMap((c) => c.slice(0, TRACE_LIMIT)).filter((i) => seen(i.agent_id)),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  if (items.length === 0) throw notFound("trace", id);
  return {
    object: "trace" as const,
    id,
    trace_ids: traceIds,
    correlation_ids: [...new Set(visible.map((h) => h.correlationId))],
    roots: tree.roots,
    handoffs: tree.nodes,
    timeline: items,
    counts: items.reduce<Record<string, number>>((c, i) => ({ ...c, [i.kind]: (c[i.kind] ?? 0) + 1 }), {}),
    dead_handoffs: tree.nodes.filter((n) => n.status === "dead").map((n) => n.id),
    truncated,
  };
}
