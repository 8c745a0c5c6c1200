import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { agents, type AgentRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { maxPriority } from "./schemas";

export const updateAgentInput = z.object({
  max_priority: maxPriority.optional(),
  description: z.string().trim().max(500).nullish(),
});
export type UpdateAgentInput = z.output<typeof updateAgentInput>;

/**
 * Changes an agent's description or priority ceiling. A workspace-wide key, an admin (web app)
 * or the operator (CLI) may; an agent-bound key may not raise (or set) its own ceiling.
 */
export async function updateAgent(actor: Actor, agentId: string, input: UpdateAgentInput): Promise<AgentRow> {
  if (actor.type === "key" && actor.agentId) {
    throw new AppError("forbidden", "An agent-bound API key cannot change agents. Use a workspace-wide key.");
  }
  return transaction(async (tx) => {
    const [before] = await tx.select().from(agents).where(and(eq(agents.id, agentId), eq(agents.workspaceId, actor.workspaceId))).for("update");
    if (!before) throw notFound("agent", agentId);
    const set: Partial<AgentRow> = {};
    if (input.max_priority !== undefined && input.max_priority !== before.maxPriority) set.maxPriority = input.max_priority;
    if (input.description !== undefined && (input.description ?? null) !== before.description) set.description = input.description ?? null;
    if (Object.keys(set).length === 0) return before;
    const [row] = await tx.update(agents).set(set).where(eq(agents.id, agentId)).returning();
    await appendAudit(tx, [
      {
        actor,
        action: "agent.updated",
        resource: { type: "agent", id: agentId },
        agentId,
        summary: { fields: Object.keys(input).filter((k) => input[k as keyof UpdateAgentInput] !== undefined), max_priority: row!.maxPriority, previous_max_priority: before.maxPriority },
      },
    ]);
    return row!;
  });
}
