import { transaction } from "../../../db/transaction";
import { agents, type AgentRow } from "../../../db/schema";
import { isUniqueViolation } from "../../../db/errors";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { createAgentInput, type CreateAgentInput } from "./schemas";

export async function createAgent(actor: Actor, input: CreateAgentInput): Promise<AgentRow> {
  if (actor.type === "key" && actor.agentId) {
    throw new AppError("forbidden", "An agent-bound API key cannot create agents. Use a workspace-wide key.");
  }
  const { name, description, max_priority } = createAgentInput.parse(input);
  try {
    return await transaction(async (tx) => {
      const [row] = await tx
        .insert(agents)
        .values({ id: newId("agent"), workspaceId: actor.workspaceId, name, description: description ?? null, ...(max_priority !== undefined ? { maxPriority: max_priority } : {}) })
        .returning();
      await appendAudit(tx, [
        { actor, action: "agent.created", resource: { type: "agent", id: row!.id }, agentId: row!.id, summary: max_priority === undefined ? { name } : { name, max_priority } },
      ]);
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("conflict", `An agent named "${name}" already exists in this workspace.`, {
        errors: [{ field: "name", message: "already taken in this workspace" }],
      });
    }
    throw err;
  }
}
