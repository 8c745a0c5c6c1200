import { and, asc, eq, inArray, or } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { handoffs, traces, type HandoffRow } from "../../../db/schema";
import { notFound } from "../errors";
import type { Actor } from "../actor";

/** At most this many records of each kind on one trace (the answer says when it was cut). */
export const TRACE_LIMIT = 500;

/** The handoffs of a trace: those on it or sharing its correlation id (a handoff's own id names its job). */
export async function traceHandoffs(workspaceId: string, id: string): Promise<HandoffRow[]> {
  const q = await queryable();
  const ws = eq(handoffs.workspaceId, workspaceId);
  const seeds = await q
    .select({ correlationId: handoffs.correlationId, traceId: handoffs.traceId })
    .from(handoffs)
    .where(and(ws, or(eq(handoffs.traceId, id), eq(handoffs.correlationId, id), eq(handoffs.id, id))))
    .limit(TRACE_LIMIT);
  if (!seeds.length) return [];
  const correlations = [...new Set(seeds.map((s) => s.correlationId))];
  const traceIds = [...new Set([id, ...seeds.map((s) => s.traceId)])];
  return q
    .select()
    .from(handoffs)
    .where(and(ws, or(inArray(handoffs.correlationId, correlations), inArray(handoffs.traceId, traceIds))))
    .orderBy(asc(handoffs.id))
    .limit(TRACE_LIMIT + 1);
}

/** The agent that started a trace in this workspace (null: a workspace-wide key or AgentDraft); undefined when nobody has. */
export async function traceOwner(workspaceId: string, traceId: string): Promise<string | null | undefined> {
  const [row] = await (await queryable())
    .select({ agentId: traces.agentId })
    .from(traces)
    .where(and(eq(traces.workspaceId, workspaceId), eq(traces.traceId, traceId)));
  return row ? row.agentId : undefined;
}

/** An agent is in a trace's graph when it started the trace or sent or received one of its handoffs. */
export const inGraph = (agentId: string, owner: string | null | undefined, rows: HandoffRow[]) =>
  owner === agentId || rows.some((h) => h.fromAgentId === agentId || h.toAgentId === agentId);

/**
 * Whether `agentId` may put a record on a trace of this workspace. A trace nobody has used yet
 * becomes the agent's (first use wins: one insert decides a race); one in use is open only to
 * the agents of its graph. A trusted caller (a workspace-wide key, a person, AgentDraft) may use
 * any trace of its workspace, and starts a new one for the agent it acts for.
 */
export async function mayAttach(workspaceId: string, agentId: string | null, traceId: string, trusted = false): Promise<boolean> {
  const rows = await traceHandoffs(workspaceId, traceId);
  if (agentId && inGraph(agentId, undefined, rows)) return true;
  if (!rows.length) {
    const claimed = await (await queryable())
      .insert(traces)
      .values({ workspaceId, traceId, agentId })
      .onConflictDoNothing()
      .returning({ traceId: traces.traceId });
    if (claimed.length) return true;
  }
  if (trusted) return true;
  return agentId !== null && (await traceOwner(workspaceId, traceId)) === agentId;
}

/** An agent-bound key acts as its agent; any other actor is trusted with its whole workspace. */
export const isAgentBound = (actor: Actor): boolean => actor.type === "key" && actor.agentId !== null;

/**
 * mayAttach for the agent an actor acts as (an agent-bound key's agent, or the one a trusted
 * caller names), or the trace is not found: never says that another agent's or workspace's trace exists.
 */
export async function bindTrace(actor: Actor, traceId: string, agentId?: string | null): Promise<void> {
  if (!(await mayUseTrace(actor, traceId, agentId))) throw notFound("trace", traceId);
}

/** bindTrace's answer without the error: an agent-bound key acts as its own agent whatever `agentId` says. */
export async function mayUseTrace(actor: Actor, traceId: string, agentId?: string | null): Promise<boolean> {
  const bound = isAgentBound(actor);
  const agent = bound ? (actor as { agentId: string }).agentId : (agentId ?? null);
  return mayAttach(actor.workspaceId, agent, traceId, !bound);
}
