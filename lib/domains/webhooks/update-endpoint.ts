import { eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookEndpoints, type WebhookEndpointRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { findEndpoint } from "./find-endpoint";
import { updateEndpointInput, type UpdateEndpointInput } from "./schemas";
import { gateEndpointChange } from "./webhook-gate";
import { assertDeliverableUrl, normaliseList, resolveAgentFilter } from "./validate-endpoint";

/**
 * Changes an endpoint's URL, filters, description or enabled state. Re-enabling resets its failure
 * count. A tainted agent's key needs a person's approval for a change of where or what it delivers
 * (webhook-gate.ts; `approvalId`: the approved one).
 */
export async function updateEndpoint(actor: Actor, id: string, input: UpdateEndpointInput, approvalId: string | null = null): Promise<WebhookEndpointRow> {
  const parsed = updateEndpointInput.parse(input);
  const url = parsed.url === undefined ? undefined : assertDeliverableUrl(parsed.url);
  const agentIds = await resolveAgentFilter(actor, parsed.agent_ids, false);
  const changes: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: new Date() };
  if (url !== undefined) changes.url = url;
  if (parsed.description !== undefined) changes.description = parsed.description;
  if (parsed.event_types !== undefined) changes.eventTypes = normaliseList(parsed.event_types);
  if (agentIds !== undefined) changes.agentIds = agentIds;
  if (parsed.enabled === true) Object.assign(changes, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null, consecutiveExhausted: 0 });
  if (parsed.enabled === false) Object.assign(changes, { enabled: false, disabledReason: "disabled by request", disabledAt: new Date() });

  // A change to an endpoint the key cannot see is 404 before any approval is asked for it.
  if (actor.type === "key") await findEndpoint(actor, id);
  const change = {
    change: "update" as const,
    endpoint_id: id,
    ...(url !== undefined ? { url } : {}),
    ...(changes.eventTypes !== undefined ? { event_types: changes.eventTypes } : {}),
    ...(agentIds !== undefined ? { agent_ids: agentIds } : {}),
    ...(parsed.enabled !== undefined ? { enabled: parsed.enabled } : {}),
  };
  return gateEndpointChange(actor, change, approvalId, () => transaction(async (tx) => {
    const before = await findEndpoint(actor, id, tx, true);
    const [row] = await tx.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, before.id)).returning();
    await appendAudit(tx, [
      {
        actor,
        action: "webhook_endpoint.updated",
        resource: { type: "webhook_endpoint", id: before.id },
        summary: { changed: Object.keys(parsed).sort(), url: row!.url, enabled: row!.enabled },
      },
    ]);
    return row!;
  }));
}
