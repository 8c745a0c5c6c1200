import { transaction } from "../../../db/transaction";
import { webhookEndpoints, type WebhookEndpointRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { createEndpointInput, type CreateEndpointInput } from "./schemas";
import { generateSecret, sealSecret } from "./secret";
import { gateEndpointChange } from "./webhook-gate";
import { assertDeliverableUrl, normaliseList, resolveAgentFilter } from "./validate-endpoint";

/**
 * Creates an endpoint with a fresh secret, stored sealed and returned opened to the caller this
 * once. A tainted agent's key needs a person's approval first (webhook-gate.ts; `approvalId`: the
 * approved one, from the AgentDraft-Approval-Id header).
 */
export async function createEndpoint(actor: Actor, input: CreateEndpointInput, approvalId: string | null = null): Promise<WebhookEndpointRow> {
  const parsed = createEndpointInput.parse(input);
  const url = assertDeliverableUrl(parsed.url);
  const agentIds = (await resolveAgentFilter(actor, parsed.agent_ids, true)) ?? null;
  const eventTypes = normaliseList(parsed.event_types);
  const secret = generateSecret();
  const change = { change: "create" as const, url, event_types: eventTypes, agent_ids: agentIds, enabled: parsed.enabled };
  return gateEndpointChange(actor, change, approvalId, () => transaction(async (tx) => {
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newId("webhookEndpoint"),
        workspaceId: actor.workspaceId,
        url,
        description: parsed.description ?? null,
        eventTypes,
        agentIds,
        secret: sealSecret(secret),
        ...(parsed.enabled ? {} : { enabled: false, disabledReason: "disabled by request", disabledAt: new Date() }),
      })
      .returning();
    await appendAudit(tx, [
      {
        actor,
        action: "webhook_endpoint.created",
        resource: { type: "webhook_endpoint", id: row!.id },
        summary: { url, event_types: eventTypes, agent_ids: agentIds, ...(parsed.enabled ? {} : { enabled: false }) },
      },
    ]);
    return { ...row!, secret };
  }));
}
