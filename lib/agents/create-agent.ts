import { getDb } from "../../db/client";
import { agents, type AgentRow } from "../../db/schema";
import { isUniqueViolation } from "../../db/errors";
import { AppError } from "../errors";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { createAgentInput, type CreateAgentInput } from "./schemas";

export async function createAgent(actor: Actor, input: CreateAgentInput): Promise<AgentRow> {
  const { name, description } = createAgentInput.parse(input);
  const db = await getDb();
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(agents)
        .values({ id: newId("agent"), workspaceId: actor.workspaceId, name, description: description ?? null })
        .returning();
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", `An agent named "${name}" already exists in this workspace.`);
    throw err;
  }
}
