import { and, eq } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import type { Queryable } from "../../../db/client";
import { webhookEndpoints, type WebhookEndpointRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import { isId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";

/** Whether an actor may see this endpoint: an agent-bound key sees only endpoints filtered to exactly its agent. */
export function endpointVisibleTo(actor: Actor, e: WebhookEndpointRow): boolean {
  const own = actor.type === "key" ? actor.agentId : null;
  return !own || (e.agentIds?.length === 1 && e.agentIds[0] === own);
}

/** An endpoint of the actor's workspace that the actor may see; anything else is not found. */
export async function findEndpoint(actor: Actor, id: string, q?: Queryable, forUpdate = false): Promise<WebhookEndpointRow> {
  if (!isId("webhookEndpoint", id)) throw notFound("webhook endpoint", id);
  const db = q ?? (await queryable());
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, actor.workspaceId), eq(webhookEndpoints.id, id)));
  const [row] = forUpdate ? await query.for("update") : await query;
  if (!row || !endpointVisibleTo(actor, row)) throw notFound("webhook endpoint", id);
  return row;
}
