import { and, count, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { handoffBodies, handoffs, type HandoffRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import { page } from "../../platform/api/pagination";
import type { ListHandoffsQuery } from "./schemas";

/** Who reads: a workspace, and for an agent-bound key its agent (it sees the handoffs it sent or received). */
export type HandoffViewer = { workspaceId: string; agentId: string | null };

const visibleTo = (agentId: string) => or(eq(handoffs.fromAgentId, agentId), eq(handoffs.toAgentId, agentId));

export async function getHandoff(viewer: HandoffViewer, id: string): Promise<{ handoff: HandoffRow; body: unknown }> {
  const q = await queryable();
  const [row] = await q
    .select({ handoff: handoffs, body: handoffBodies.body })
    .from(handoffs)
    .leftJoin(handoffBodies, eq(handoffBodies.handoffId, handoffs.id))
    .where(and(eq(handoffs.id, id), eq(handoffs.workspaceId, viewer.workspaceId), viewer.agentId ? visibleTo(viewer.agentId) : undefined));
  if (!row) throw notFound("handoff", id);
  return { handoff: row.handoff, body: row.body };
}

/** Envelopes only, newest first. `role` picks received or sent for the key's agent (or `agent_id`). */
export async function listHandoffs(viewer: HandoffViewer, f: ListHandoffsQuery) {
  const q = await queryable();
  const agent = viewer.agentId ?? f.agent_id ?? null;
  const where: (SQL | undefined)[] = [eq(handoffs.workspaceId, viewer.workspaceId)];
  if (agent) {
    if (f.role === "received") where.push(eq(handoffs.toAgentId, agent));
    else if (f.role === "sent") where.push(eq(handoffs.fromAgentId, agent));
    else where.push(visibleTo(agent));
  }
  if (f.status) where.push(eq(handoffs.status, f.status));
  if (f.type) where.push(eq(handoffs.type, f.type));
  if (f.correlation_id) where.push(eq(handoffs.correlationId, f.correlation_id));
  if (f.starting_after) where.push(lt(handoffs.id, f.starting_after));
  const rows = await q.select().from(handoffs).where(and(...where)).orderBy(desc(handoffs.id)).limit(f.limit + 1);
  return page(rows, f.limit);
}

/** How many handoffs of the workspace are dead (for the overview). */
export async function countDeadHandoffs(workspaceId: string): Promise<number> {
  const q = await queryable();
  const [row] = await q.select({ n: count() }).from(handoffs).where(and(eq(handoffs.workspaceId, workspaceId), eq(handoffs.status, "dead")));
  return Number(row?.n ?? 0);
}

/** The bodies of these handoffs, by id (the trace page shows them to people). */
export async function handoffBodiesOf(workspaceId: string, ids: string[]): Promise<Map<string, unknown>> {
  if (!ids.length) return new Map();
  const q = await queryable();
  const rows = await q.select().from(handoffBodies).where(and(eq(handoffBodies.workspaceId, workspaceId), inArray(handoffBodies.handoffId, ids)));
  return new Map(rows.map((r) => [r.handoffId, r.body]));
}
