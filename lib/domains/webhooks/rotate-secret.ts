import { eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookEndpoints, type WebhookEndpointRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { findEndpoint } from "./find-endpoint";
import { generateSecret, openSecret, sealSecret } from "./secret";
import { PREVIOUS_SECRET_TTL_MS } from "./deliver";

/**
 * Gives the endpoint a new secret. The old one stays valid for 24 hours: until then every
 * delivery carries both signatures, so receivers can switch over without dropping any. Both are
 * stored sealed; the new one is returned opened, this once.
 */
export async function rotateSecret(actor: Actor, id: string, now = new Date()): Promise<WebhookEndpointRow> {
  const secret = generateSecret();
  return transaction(async (tx) => {
    const endpoint = await findEndpoint(actor, id, tx, true);
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        secret: sealSecret(secret),
        previousSecret: sealSecret(openSecret(endpoint.secret)),
        previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning();
    await appendAudit(tx, [{ actor, action: "webhook_endpoint.secret_rotated", resource: { type: "webhook_endpoint", id: endpoint.id } }]);
    return { ...row!, secret };
  });
}
