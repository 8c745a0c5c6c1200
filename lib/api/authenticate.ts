import { eq, sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { apiKeys, type ApiKeyScope } from "../../db/schema";
import { AppError } from "../errors";
import { hashKey, looksLikeKey } from "../api-keys/key-material";

export type AuthenticatedKey = {
  id: string;
  workspaceId: string;
  /** Set for agent-bound keys: the key acts only as this agent. */
  agentId: string | null;
  /** null: every scope. */
  scopes: ApiKeyScope[] | null;
  mode: "live" | "test";
};

/** last_used_at is refreshed at most this often, so authenticating is a read, not a write per request. */
const LAST_USED_PRECISION_MS = 60_000;

const unauthorized = (detail: string) =>
  new AppError("unauthorized", detail, {}, { "www-authenticate": 'Bearer realm="agentdraft"' });

/** Resolves `Authorization: Bearer ad_...` to its key by hash; unknown or revoked keys are 401. */
export async function authenticate(authorization: string | null): Promise<AuthenticatedKey> {
  if (!authorization) throw unauthorized("Send your API key as `Authorization: Bearer ad_live_...`.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized("The Authorization header must be `Bearer <API key>`.");
  const key = match[1]!;
  if (!looksLikeKey(key)) throw unauthorized("That is not an AgentDraft API key (they start with ad_live_ or ad_test_).");

  const db = await getDb();
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.hash, hashKey(key)));
  if (!row) throw unauthorized("This API key is not valid.");
  if (row.revokedAt) throw unauthorized("This API key has been revoked.");

  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(sql`${apiKeys.id} = ${row.id} and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '60 seconds')`);
  }
  return { id: row.id, workspaceId: row.workspaceId, agentId: row.agentId, scopes: row.scopes as ApiKeyScope[] | null, mode: row.mode };
}

export function requireScope(key: AuthenticatedKey, scope: ApiKeyScope | undefined): void {
  if (scope && key.scopes && !key.scopes.includes(scope)) {
    throw new AppError("insufficient_scope", `This API key does not have the "${scope}" scope.`, { required_scope: scope });
  }
}
