import { and, eq } from "drizzle-orm";
import { transaction, queryable } from "../../../db/transaction";
import { apiKeys, type ApiKeyRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";

/**
 * Revokes a key of the actor's workspace. Revoking an already revoked key returns it
 * unchanged (so retries are safe) and records nothing.
 */
export async function revokeKey(actor: Actor, keyId: string): Promise<ApiKeyRow> {
  return transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.workspaceId, actor.workspaceId)))
      .for("update");
    if (!row) throw notFound("API key", keyId);
    if (row.revokedAt) return row;
    const [revoked] = await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyId)).returning();
    await appendAudit(tx, [
      { actor, action: "api_key.revoked", resource: { type: "api_key", id: keyId }, agentId: row.agentId, summary: { prefix: row.prefix } },
    ]);
    return revoked!;
  });
}

/** The workspace a key belongs to, for the operator CLI which names keys by id alone. */
export async function keyWorkspace(keyId: string): Promise<string> {
  const q = await queryable();
  const [row] = await q.select({ workspaceId: apiKeys.workspaceId }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!row) throw notFound("API key", keyId);
  return row.workspaceId;
}
