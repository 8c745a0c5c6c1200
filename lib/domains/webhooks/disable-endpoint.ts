import { eq } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { webhookEndpoints, type WebhookEndpointRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { notifyEndpointDisabled } from "./notify-endpoint-disabled";
import { queueNotifications } from "../notifications";

/** Disables an endpoint inside the caller's transaction, queues the owners' notice and audits it. */
export async function disableEndpointInTx(tx: Transaction, actor: Actor, endpoint: WebhookEndpointRow, reason: string, at: Date) {
  await tx
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, disabledAt: at, updatedAt: at })
    .where(eq(webhookEndpoints.id, endpoint.id));
  await notifyEndpointDisabled(tx, { workspaceId: endpoint.workspaceId, endpointId: endpoint.id, url: endpoint.url, reason });
  await queueNotifications(tx, { workspaceId: endpoint.workspaceId, type: "webhook_endpoint.disabled", subject: endpoint.id });
  await appendAudit(tx, [
    {
      actor,
      action: "webhook_endpoint.disabled",
      resource: { type: "webhook_endpoint", id: endpoint.id },
      agentId: null,
      summary: { url: endpoint.url, reason },
    },
  ]);
}
