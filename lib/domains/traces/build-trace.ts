import { and, asc, eq, inArray, or } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { auditEntries, type ApiKeyScope, type AuditEntryRow, type HandoffRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import { hashedFields } from "../../platform/audit/chain";
import { sealBeforeRead } from "../../platform/audit/seal-chain";
import { serializeHandoff } from "../handoffs";
import { TRACE_SOURCES } from "./sources";
import type { TraceItem } from "./trace-item";
import { TRACE_LIMIT, inGraph, traceHandoffs, traceOwner } from "../../platform/traces/trace-access";
import { getTraceOp } from "./operations";
import { listAuditOp } from "../audit";
import { getMessageOp } from "../mail";
import { getHoldOp } from "../holds";
import { getApprovalOp } from "../approvals";
import { getLeaseOp } from "../leases";
import { recordReadsOf } from "../taint";
import type { Actor } from "../../platform/actor";

export { TRACE_LIMIT };

/** What a reader of a trace is: its workspace, its agent (agent-bound keys) and its scopes (null: every scope). */
export type TraceViewer = { workspaceId: string; agentId: string | null; scopes?: ApiKeyScope[] | null };

type Node = ReturnType<typeof serializeHandoff> & { depth: number; children: string[] };

/** The scope a key needs to see each kind of record on a trace: the scope of the kind's own read endpoint. */
const KIND_SCOPES: Record<string, ApiKeyScope | undefined> = {
  handoff: getTraceOp.scope,
  audit_entry: listAuditOp.scope,
  message: getMessageOp.scope,
  hold: getHoldOp.scope,
  approval: getApprovalOp.scope,
  lease: getLeaseOp.scope,
};
const mayRead = (viewer: TraceViewer, kind: string) => {
  const scope = KIND_SCOPES[kind];
  return !viewer.scopes || !scope || viewer.scopes.includes(scope);
};

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
 * id, in the viewer's workspace: its handoffs as a tree by parent, and every record on it (audit
 * entries, then each source in TRACE_SOURCES) in time order, of the kinds the viewer's scopes
 * may read. An agent-bound viewer reads a trace only if its agent is in the graph (started the
 * trace, or sent or received one of its handoffs): then it sees all its envelopes and their
 * lifecycle entries, and of the other records its own agent's. Another agent's trace, and one
 * with nothing the viewer may see, is not found (the answer never tells them apart).
 */
export async function buildTrace(viewer: TraceViewer, id: string, reader?: Actor) {
  await sealBeforeRead(viewer.workspaceId);
  const [rows, owner] = await Promise.all([traceHandoffs(viewer.workspaceId, id), traceOwner(viewer.workspaceId, id)]);
  const member = !viewer.agentId || inGraph(viewer.agentId, owner, rows);
  // A trace another agent started, or whose graph this agent has no part in, is not this agent's to read.
  if (!member && (rows.length || owner !== undefined)) throw notFound("trace", id);
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
  const sources = TRACE_SOURCES.filter((s) => mayRead(viewer, s.kind));
  const collected = await Promise.all(sources.map((s) => s.collect(ctx)));
  const seen = (agentId: string | null) => !viewer.agentId || agentId === viewer.agentId;
  // The graph's envelopes (routing and state, never bodies) are shown whole to an agent with a part in it: a fallback worker needs all of it.
  const visible = member && mayRead(viewer, "handoff") ? rows.slice(0, TRACE_LIMIT) : [];
  const tree = handoffTree(visible);
  const auditSeen = mayRead(viewer, "audit_entry") ? audit.slice(0, TRACE_LIMIT) : [];
  const truncated = rows.length > TRACE_LIMIT || (auditSeen.length > 0 && audit.length > TRACE_LIMIT) || collected.some((c) => c.length > TRACE_LIMIT);
  const items = [
    ...tree.nodes.map(handoffItem),
    // A handoff's own lifecycle entries belong to the graph; other entries to their agent.
    ...auditSeen.filter((e) => seen(e.agentId) || (member && e.resourceType === "handoff" && handoffIds.includes(e.resourceId))).map(auditItem),
    ...collected.flatMap((c) => c.slice(0, TRACE_LIMIT)).filter((i) => seen(i.agent_id)),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  if (items.length === 0) throw notFound("trace", id);
  // The timeline shows mail subjects: a key reading untrusted mail's subject here is tainted by it.
  if (reader) await recordReadsOf(reader, viewer.workspaceId, items.filter((i) => i.kind === "message").map((i) => i.id));
  return {
    object: "trace" as const,
    id,
    trace_ids: member ? traceIds : [id],
    correlation_ids: [...new Set(visible.map((h) => h.correlationId))],
    roots: tree.roots,
    handoffs: tree.nodes,
    timeline: items,
    counts: items.reduce<Record<string, number>>((c, i) => ({ ...c, [i.kind]: (c[i.kind] ?? 0) + 1 }), {}),
    dead_handoffs: tree.nodes.filter((n) => n.status === "dead").map((n) => n.id),
    truncated,
  };
}
