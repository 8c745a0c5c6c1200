import { and, eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookDeliveries } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { scheduleWork } from "../../platform/jobs/schedule";
import { DELIVERY_KIND } from "../../platform/events/outbox";
import { findEndpoint } from "./find-endpoint";

/** Every failed delivery of an endpoint gets one more attempt now (one audit entry for all). */
export async function retryFailedDeliveries(actor: Actor, endpointId: string): Promise<{ retried: number }> {
  return transaction(async (tx) => {
    const endpoint = await findEndpoint(actor, endpointId, tx, true);
    if (!endpoint.enabled) {
      throw new AppError("conflict", `Endpoint ${endpoint.id} is disabled (${endpoint.disabledReason ?? "disabled"}). Enable it first.`);
    }
    const now = new Date();
    const rows = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: now, completedAt: null })
      .where(and(eq(webhookDeliveries.workspaceId, actor.workspaceId), eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, "failed")))
      .returning({ id: webhookDeliveries.id });
    scheduleWork(DELIVERY_KIND, rows.map((r) => ({ id: r.id, workspaceId: actor.workspaceId, key: endpoint.id, dueAt: now })));
    await appendAudit(tx, [
      { actor, action: "webhook_endpoint.failed_retried", resource: { type: "webhook_endpoint", id: endpoint.id }, summary: { deliveries: rows.length } },
    ]);
    return { retried: rows.length };
  });
}
