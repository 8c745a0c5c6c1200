import type { Transaction } from "../../db/client";
import { webhookEvents, type WebhookEventRow } from "../../db/schema";
import { newId } from "../ids";
import type { Actor } from "../actor";

/** Every event type a webhook endpoint can subscribe to (SPEC §6). */
export const EVENT_TYPES = [
  "email.received",
  "email.sent",
  "email.bounced",
  "hold.created",
  "hold.preempted",
  "hold.expired",
  "hold.released",
  "hold.committed",
  "event.cancelled",
  "approval.requested",
  "approval.resolved",
  "calendar.synced",
  "calendar.sync_failed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event to the outbox inside the caller's transaction: it exists exactly when the
 * change that caused it committed. Delivery happens later, from the outbox.
 */
export async function emitEvent(
  tx: Transaction,
  actor: Actor,
  event: { type: EventType; agentId?: string | null; data: Record<string, unknown> },
): Promise<WebhookEventRow> {
  const [row] = await tx
    .insert(webhookEvents)
    .values({
      id: newId("webhookEvent"),
      workspaceId: actor.workspaceId,
      type: event.type,
      agentId: event.agentId ?? null,
      data: event.data,
      traceId: actor.traceId ?? null,
    })
    .returning();
  return row!;
}
