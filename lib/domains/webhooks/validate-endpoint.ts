import { and, eq, inArray } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { agents } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { assertDeliverableUrl } from "../../platform/outbound/deliverable-url";

export { assertDeliverableUrl };

/** Empty means "all": stored as null. Duplicates dropped, sorted for stable comparison. */
export const normaliseList = (v: string[] | null | undefined): string[] | null => (v && v.length ? [...new Set(v)].sort() : null);

/**
 * The agent filter an actor may set. An agent-bound key manages only endpoints filtered to
 * exactly its own agent: it defaults to that, and naming any other agent is "not found" (SPEC §1).
 */
export async function resolveAgentFilter(actor: Actor, requested: string[] | null | undefined, isCreate: boolean): Promise<string[] | null | undefined> {
  const own = actor.type === "key" ? actor.agentId : null;
  if (requested === undefined && !isCreate) return undefined;
  const list = normaliseList(requested);
  if (own) {
    if (list === null) {
      if (isCreate && requested === undefined) return [own];
      throw new AppError("forbidden", "An agent-bound API key can only manage endpoints filtered to its own agent: agent_ids must be [its agent].");
    }
    const other = list.find((id) => id !== own);
    if (other) throw notFound("agent", other);
    return list;
  }
  if (list) {
    const q = await queryable();
    const found = await q.select({ id: agents.id }).from(agents).where(and(eq(agents.workspaceId, actor.workspaceId), inArray(agents.id, list)));
    const known = new Set(found.map((a) => a.id));
    const errors = list.flatMap((id, i) => (known.has(id) ? [] : [{ field: `agent_ids.${i}`, message: `no agent with id ${id} in this workspace` }]));
    if (errors.length) throw new AppError("validation_failed", `agent_ids names unknown agents.`, { errors });
  }
  return list;
}
