import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../db/schema";
import { newId } from "../ids";

/**
 * Turns waiting outbox events into one delivery per matching enabled endpoint. Idempotent and
 * safe to run concurrently: events are claimed with FOR UPDATE SKIP LOCKED, and a delivery is
 * unique per (endpoint, event). Returns how many events and deliveries it handled.
 */
export async function fanOutEvents(opts: { limit?: number; workspaceId?: string } = {}): Promise<{ events: number; deliveries: number }> {
  const limit = opts.limit ?? 100;
  return transaction(async (tx) => {
    const events = await tx
      .select()
      .from(webhookEvents)
      .where(and(isNull(webhookEvents.fannedOutAt), opts.workspaceId ? eq(webhookEvents.workspaceId, opts.workspaceId) : undefined))
      .orderBy(asc(webhookEvents.id))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (events.length === 0) return { events: 0, deliveries: 0 };

    const workspaceIds = [...new Set(events.map((e) => e.workspaceId))];
    const endpoints = await tx
      .select()
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.workspaceId, workspaceIds), eq(webhookEndpoints.enabled, true)));

    const rows = events.flatMap((event) =>
      endpoints
        .filter(
          (ep) =>
            ep.workspaceId === event.workspaceId &&
            (ep.eventTypes === null || ep.eventTypes.includes(event.type)) &&
            (ep.agentIds === null || (event.agentId !== null && ep.agentIds.includes(event.agentId))),
        )
        .map((ep) => ({
          id: newId("webhookDelivery"),
          workspaceId: event.workspaceId,
          endpointId: ep.id,
          eventId: event.id,
          eventType: event.type,
          // Due since the event happened: a runner with any later clock picks it up.
          nextAttemptAt: event.createdAt,
        })),
    );
    let inserted = 0;
    if (rows.length > 0) {
      const done = await tx.insert(webhookDeliveries).values(rows).onConflictDoNothing().returning({ id: webhookDeliveries.id });
      inserted = done.length;
    }
    await tx
      .update(webhookEvents)
      .set({ fannedOutAt: sql`now()` })
      .where(inArray(webhookEvents.id, events.map((e) => e.id)));
    return { events: events.length, deliveries: inserted };
  });
}
