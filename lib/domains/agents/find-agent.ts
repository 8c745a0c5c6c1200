import { and, eq, or } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { agents, type AgentRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";

/** An agent of this workspace by id (or by name, for the CLI). Other workspaces' agents are not found. */
export async function findAgent(workspaceId: string, idOrName: string): Promise<AgentRow> {
  const q = await queryable();
  const [row] = await q
    .select()
    .from(agents)
    .where(and(eq(agents.workspaceId, workspaceId), or(eq(agents.id, idOrName), eq(agents.name, idOrName))));
  if (!row) throw notFound("agent", idOrName);
  return row;
}
