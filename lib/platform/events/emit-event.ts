import { sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { webhookEvents, type WebhookEventRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { executeFixed } from "../../../db/prepared";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { announceOutbox, type OutboxDelivery } from "./outbox";

export { EVENT_TYPES, type EventType } from "./event-type-list";
import type { EventType } from "./event-type-list";

/**
 * Writes an event to the outbox inside the caller's transaction, and in the same statement one
 * delivery per matching enabled endpoint (the database's agentdraft_emit, the one definition of
 * fan-out): both exist exactly when the change that caused them committed. After the commit
 * each delivery is announced as its own unit of work.
 */
export async function emitEvent(
  tx: Transaction,
  actor: Actor,
  event: { type: EventType; agentId?: string | null; data: Record<string, unknown> },
): Promise<WebhookEventRow> {
  // One fixed text: a named prepared statement where the driver keeps them (db/prepared.ts).
  const { rows } = await executeFixed<{ emitted: { event: Record<string, unknown>; deliveries: OutboxDelivery[] } | string }>(
    tx,
    sql`select agentdraft_emit(${actor.workspaceId}, ${event.type}, ${event.agentId ?? null}, ${JSON.stringify(event.data)}::jsonb, ${actor.traceId ?? null}, ${newId("webhookEvent")}) as emitted`,
  );
  const emitted = jsonValue<{ event: Record<string, unknown>; deliveries: OutboxDelivery[] }>(rows[0]!.emitted);
  announceOutbox(actor.workspaceId, emitted.deliveries, false);
  return rowFromJson(webhookEvents, emitted.event);
}
