import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { agents } from "../../../db/schema";
import { page, type Pagination } from "../../platform/api/pagination";

/** Newest first. `onlyAgentId` narrows the list for an agent-bound key to its own agent. */
export async function listAgents(workspaceId: string, p: Pagination, onlyAgentId?: string | null) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(agents.workspaceId, workspaceId)];
  if (onlyAgentId) where.push(eq(agents.id, onlyAgentId));
  if (p.starting_after) where.push(lt(agents.id, p.starting_after));
  const rows = await q.select().from(agents).where(and(...where)).orderBy(desc(agents.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}
