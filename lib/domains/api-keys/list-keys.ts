import { desc, eq } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { apiKeys, type ApiKeyRow } from "../../../db/schema";

/** A workspace's keys, newest first, revoked ones included (the web app shows their history). */
export async function listKeys(workspaceId: string): Promise<ApiKeyRow[]> {
  const q = await queryable();
  return q.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).orderBy(desc(apiKeys.id)).limit(500);
}

/** Active keys not used within `ms` (or never used), to suggest revoking. */
export function unusedKeys(keys: ApiKeyRow[], ms: number, now = Date.now()): ApiKeyRow[] {
  return keys.filter((k) => !k.revokedAt && (!k.lastUsedAt || now - k.lastUsedAt.getTime() > ms));
}
