import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "../../db/client";
import { apiKeys, type ApiKeyRow } from "../../db/schema";
import { notFound } from "../errors";
import type { Actor } from "../actor";

/**
 * Revokes a key of the actor's workspace. Revoking an already revoked key is a no-op that
 * returns it unchanged (so retries are safe).
 */
export async function revokeKey(actor: Actor, keyId: string): Promise<ApiKeyRow> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.workspaceId, actor.workspaceId)))
      .for("update");
    if (!row) throw notFound("API key", keyId);
    if (row.revokedAt) return row;
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning();
    return revoked!;
  });
}

/** The workspace a key belongs to, for the operator CLI which names keys by id alone. */
export async function keyWorkspace(keyId: string): Promise<string> {
  const db = await getDb();
  const [row] = await db.select({ workspaceId: apiKeys.workspaceId }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!row) throw notFound("API key", keyId);
  return row.workspaceId;
}
