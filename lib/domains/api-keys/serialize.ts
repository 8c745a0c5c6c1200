import type { ApiKeyRow } from "../../../db/schema";

/** Never includes the key or its hash. */
export const serializeApiKey = (k: ApiKeyRow) => ({
  id: k.id,
  object: "api_key" as const,
  name: k.name,
  prefix: k.prefix,
  mode: k.mode,
  agent_id: k.agentId,
  scopes: k.scopes,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});
