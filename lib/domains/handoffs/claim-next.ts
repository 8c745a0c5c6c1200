import { and, asc, eq } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { handoffs, type HandoffRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { claimHandoff } from "./work-handoff";

const CANDIDATES = 20;

/**
 * Claims the oldest pending handoff for an agent (of a type, if given): the candidates are tried
 * oldest first, and one another worker took meanwhile is skipped. Null when none is waiting.
 */
export async function claimNextHandoff(
  actor: Actor,
  o: { agentId?: string; type?: string; ttlSeconds: number; worker?: string },
): Promise<{ handoff: HandoffRow; body: unknown } | null> {
  const keyAgent = actor.type === "key" ? actor.agentId : null;
  if (keyAgent && o.agentId && o.agentId !== keyAgent) throw new AppError("not_found", `No agent with id ${o.agentId}.`);
  const agentId = keyAgent ?? o.agentId;
  if (!agentId) throw new AppError("validation_failed", "a workspace-wide key must name the agent whose work to take (agent_id)", { errors: [{ field: "agent_id", message: "required with a workspace-wide key" }] });
  const q = await queryable();
  const rows = await q
    .select({ id: handoffs.id })
    .from(handoffs)
    .where(and(eq(handoffs.workspaceId, actor.workspaceId), eq(handoffs.toAgentId, agentId), eq(handoffs.status, "pending"), o.type ? eq(handoffs.type, o.type) : undefined))
    .orderBy(asc(handoffs.id))
    .limit(CANDIDATES);
  for (const { id } of rows) {
    try {
      return await claimHandoff(actor, id, o.ttlSeconds, o.worker);
    } catch (err) {
      if (err instanceof AppError && (err.code === "handoff_claimed" || err.code === "handoff_not_pending")) continue;
      throw err;
    }
  }
  return null;
}
