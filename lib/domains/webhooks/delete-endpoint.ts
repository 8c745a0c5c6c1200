import { eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookEndpoints } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { findEndpoint } from "./find-endpoint";

/** Deletes an endpoint and its delivery log; pending deliveries to it are not made. */
export async function deleteEndpoint(actor: Actor, id: string): Promise<{ id: string }> {
  return transaction(async (tx) => {
    const endpoint = await findEndpoint(actor, id, tx, true);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    await appendAudit(tx, [
      { actor, action: "webhook_endpoint.deleted", resource: { type: "webhook_endpoint", id: endpoint.id }, summary: { url: endpoint.url } },
    ]);
    return { id: endpoint.id };
  });
}
