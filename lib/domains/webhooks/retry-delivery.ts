import { and, eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookDeliveries, type WebhookDeliveryRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { isId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { findEndpoint } from "./find-endpoint";
import { scheduleWork } from "../../platform/jobs/schedule";
import { DELIVERY_KIND } from "../../platform/events/outbox";

/**
 * Schedules one more attempt of a delivery now, whatever its status (a succeeded one is sent
 * again, with the same webhook-id). The endpoint must be enabled.
 */
export async function retryDelivery(actor: Actor, id: string): Promise<WebhookDeliveryRow> {
  if (!isId("webhookDelivery", id)) throw notFound("webhook delivery", id);
  return transaction(async (tx) => {
    const [delivery] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.workspaceId, actor.workspaceId), eq(webhookDeliveries.id, id)))
      .for("update");
    if (!delivery) throw notFound("webhook delivery", id);
    const endpoint = await findEndpoint(actor, delivery.endpointId, tx).catch(() => {
      throw notFound("webhook delivery", id);
    });
    if (!endpoint.enabled) {
      throw new AppError("conflict", `Endpoint ${endpoint.id} is disabled (${endpoint.disabledReason ?? "disabled"}). Enable it first.`);
    }
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: new Date(), completedAt: null })
      .where(eq(webhookDeliveries.id, delivery.id))
      .returning();
    scheduleWork(DELIVERY_KIND, [{ id: row!.id, workspaceId: row!.workspaceId, key: row!.endpointId, dueAt: row!.nextAttemptAt! }]);
    await appendAudit(tx, [
      {
        actor,
        action: "webhook_delivery.retried",
        resource: { type: "webhook_delivery", id: delivery.id },
        summary: { endpoint_id: endpoint.id, event_id: delivery.eventId, previous_status: delivery.status },
      },
    ]);
    return row!;
  });
}
