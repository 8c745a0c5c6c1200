import { and, eq } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { agents, auditEntries, type AuditEntryRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { sealBeforeRead } from "../../platform/audit/seal-chain";
import { bindTrace, inGraph, traceHandoffs } from "../../platform/traces/trace-access";
import type { AgentNoteInput } from "./note-schemas";

const field = (name: string, message: string) => new AppError("validation_failed", message, { errors: [{ field: name, message }] });

/** The note as stored in the entry's summary: the sentence, then whichever parts the agent gave. */
function noteSummary(n: AgentNoteInput): Record<string, unknown> {
  const out: Record<string, unknown> = { note: n.summary };
  if (n.trigger !== undefined) out.trigger = n.trigger;
  if (n.context !== undefined) out.context = n.context;
  if (n.outside_call) out.outside_call = n.outside_call;
  if (n.model) out.model = n.model;
  return out;
}

/** Whether the handoff exists in the workspace and the agent sent or received a handoff of its graph. */
async function inOwnGraph(workspaceId: string, agentId: string, handoffId: string): Promise<boolean> {
  const rows = await traceHandoffs(workspaceId, handoffId);
  return rows.some((h) => h.id === handoffId) && inGraph(agentId, undefined, rows);
}

/**
 * Records why an agent acted (SPEC §16): an `agent.*` entry appended to the trail like every
 * other, chained by the sealer. The actor is the key; the agent is the key's own, or the one a
 * workspace-wide key names (any agent of its workspace: it may act for each). A handoff it names
 * must be of that agent's graph, and its trace one that agent may use (lib/platform/traces/trace-access.ts).
 * Sealed before answering when it can be, so the answer shows its seq.
 */
export async function addAgentNote(actor: Actor, n: AgentNoteInput): Promise<AuditEntryRow> {
  const keyAgent = actor.type === "key" ? actor.agentId : null;
  if (keyAgent && n.agent_id && n.agent_id !== keyAgent) throw new AppError("not_found", `No agent with id ${n.agent_id}.`);
  const agentId = keyAgent ?? n.agent_id;
  if (!agentId) throw field("agent_id", "a workspace-wide key must name the agent the note is about (agent_id)");
  const q = await queryable();
  const [agent] = await q.select({ id: agents.id }).from(agents).where(and(eq(agents.id, agentId), eq(agents.workspaceId, actor.workspaceId)));
  if (!agent) throw field("agent_id", `no agent with id ${agentId} in this workspace`);
  // A note names only a handoff of its agent's own graph, and goes only on a trace its agent may use.
  if (n.resource?.type === "handoff" && !(await inOwnGraph(actor.workspaceId, agentId, n.resource.id))) throw notFound("handoff", n.resource.id);
  const traceId = n.trace_id ?? actor.traceId;

  const [entry] = await transaction(async (tx) => {
    if (traceId) await bindTrace(actor, traceId, agentId);
    return appendAudit(tx, [
      {
        actor: { ...actor, traceId },
        agentId,
        action: n.action,
        resource: n.resource ?? { type: "agent", id: agentId },
        summary: noteSummary(n),
        outcome: n.outcome,
      },
    ]);
  });
  await sealBeforeRead(actor.workspaceId);
  const [sealed] = await (await queryable()).select().from(auditEntries).where(eq(auditEntries.id, entry!.id));
  return sealed ?? entry!;
}
