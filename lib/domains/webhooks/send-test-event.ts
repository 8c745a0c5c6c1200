import { sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookDeliveries, webhookEvents } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { scheduleWork } from "../../platform/jobs/schedule";
import { DELIVERY_KIND } from "../../platform/events/outbox";
import { findEndpoint } from "./find-endpoint";

/** The type of a test delivery: signed and delivered like any event, to one endpoint only, never streamed. */
export const TEST_EVENT_TYPE = "webhook.test";

/**
 * Sends a signed `webhook.test` event to this endpoint alone (not fanned out: the outbox row is
 * written already fanned out, with exactly one delivery), so an owner can check the receiver.
 */
export async function sendTestEvent(actor: Actor, endpointId: string): Promise<{ eventId: string; deliveryId: string }> {
  return transaction(async (tx) => {
    const endpoint = await findEndpoint(actor, endpointId, tx);
    if (!endpoint.enabled) throw new AppError("conflict", `Endpoint ${endpoint.id} is disabled. Enable it first.`);
    const eventId = newId("webhookEvent");
    const now = new Date();
    await tx.insert(webhookEvents).values({
      id: eventId,
      workspaceId: actor.workspaceId,
      type: TEST_EVENT_TYPE,
      data: { endpoint_id: endpoint.id, message: "A test event from AgentDraft: your endpoint receives and verifies webhooks." },
      traceId: actor.traceId ?? null,
      fannedOutAt: sql`now()`,
    });
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values({ id: newId("webhookDelivery"), workspaceId: actor.workspaceId, endpointId: endpoint.id, eventId, eventType: TEST_EVENT_TYPE, nextAttemptAt: now })
      .returning();
    scheduleWork(DELIVERY_KIND, [{ id: delivery!.id, workspaceId: actor.workspaceId, key: endpoint.id, dueAt: now }]);
    await appendAudit(tx, [
      { actor, action: "webhook_endpoint.test_sent", resource: { type: "webhook_endpoint", id: endpoint.id }, summary: { event_id: eventId, delivery_id: delivery!.id } },
    ]);
    return { eventId, deliveryId: delivery!.id };
  });
}
