import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { webhookEndpoints } from "../../../db/schema";
import { page, type Pagination } from "../../platform/api/pagination";
import type { Actor } from "../../platform/actor";

/** Newest first; an agent-bound key sees only endpoints filtered to exactly its agent. */
export async function listEndpoints(actor: Actor, p: Pagination) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(webhookEndpoints.workspaceId, actor.workspaceId)];
  const own = actor.type === "key" ? actor.agentId : null;
  if (own) where.push(sql`${webhookEndpoints.agentIds} = array[${own}]::text[]`);
  if (p.starting_after) where.push(lt(webhookEndpoints.id, p.starting_after));
  const rows = await q.select().from(webhookEndpoints).where(and(...where)).orderBy(desc(webhookEndpoints.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}
