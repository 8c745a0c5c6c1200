import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { agents, inboxes, messages, threads } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { getInbox } from "./inboxes";
import { labelsOfThreads } from "./labels";

const flagged = sql<number>`count(*) filter (where jsonb_array_length(${messages.security}->'injection_signals') > 0 or (${messages.security}->>'auth_failed')::boolean)`;

/** Every inbox of the workspace with its agent and mail counts, for the web app's inbox list. */
export async function inboxOverview(actor: Actor) {
  const q = await queryable();
  return q
    .select({
      id: inboxes.id,
      address: inboxes.address,
      displayName: inboxes.displayName,
      agentId: inboxes.agentId,
      agentName: agents.name,
      received: sql<number>`count(${messages.id}) filter (where ${messages.direction} = 'inbound')`.mapWith(Number),
      sent: sql<number>`count(${messages.id}) filter (where ${messages.direction} = 'outbound')`.mapWith(Number),
      flagged: flagged.mapWith(Number),
      lastMessageAt: sql<Date | null>`max(${messages.createdAt})`.mapWith((v) => (v ? new Date(v) : null)),
    })
    .from(inboxes)
    .innerJoin(agents, eq(agents.id, inboxes.agentId))
    .leftJoin(messages, eq(messages.inboxId, inboxes.id))
    .where(and(eq(inboxes.workspaceId, actor.workspaceId), actor.type === "key" && actor.agentId ? eq(inboxes.agentId, actor.agentId) : undefined))
    .groupBy(inboxes.id, agents.name)
    .orderBy(desc(inboxes.id));
}

/** An inbox's most recent threads, each with how many of its messages carry security flags or are automated. */
export async function threadOverview(actor: Actor, inboxId: string, limit = 100) {
  const inbox = await getInbox(actor, inboxId);
  const q = await queryable();
  const rows = await q.select().from(threads).where(eq(threads.inboxId, inboxId)).orderBy(desc(threads.lastMessageAt), desc(threads.id)).limit(limit);
  const counts = rows.length
    ? await q
        .select({
          threadId: messages.threadId,
          flagged: flagged.mapWith(Number),
          automated: sql<number>`count(*) filter (where ${messages.automated})`.mapWith(Number),
          undelivered: sql<number>`count(*) filter (where ${messages.status} in ('bounced', 'failed'))`.mapWith(Number),
          captured: sql<number>`count(*) filter (where ${messages.status} = 'captured')`.mapWith(Number),
        })
        .from(messages)
        .where(inArray(messages.threadId, rows.map((r) => r.id)))
        .groupBy(messages.threadId)
    : [];
  const none = { flagged: 0, automated: 0, undelivered: 0, captured: 0 };
  const labels = await labelsOfThreads(rows.map((r) => r.id));
  return { inbox, threads: rows.map((t) => ({ ...t, ...(counts.find((c) => c.threadId === t.id) ?? none), labels: labels.get(t.id) ?? [] })) };
}
