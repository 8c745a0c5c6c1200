import type { AgentRow, ApiKeyScope } from "../../../db/schema";
import { AppError } from "../errors";
import { looksLikeKey } from "./key-material";

export type AuthenticatedKey = {
  id: string;
  workspaceId: string;
  /** Set for agent-bound keys: the key acts only as this agent. */
  agentId: string | null;
  /** null: every scope. */
  scopes: ApiKeyScope[] | null;
  mode: "live" | "test";
  /** Read by the door with the key (absent where a key is built otherwise). */
  workspaceName?: string;
  /** The bound agent's row, read by the door with the key. */
  agent?: AgentRow | null;
};

/** last_used_at is refreshed at most this often, so authenticating is a read, not a write per request. */
export const LAST_USED_PRECISION_SECONDS = 60;

export const unauthorized = (detail: string) =>
  new AppError("unauthorized", detail, {}, { "www-authenticate": 'Bearer realm="agentdraft"' });

/** An OAuth access token (lib/domains/oauth): good only at the MCP server, the resource it was issued for. */
const ACCESS_TOKEN_SHAPE = /^ad_at_[A-Za-z0-9_-]{43}$/;

/**
 * The API key of `Authorization: Bearer ad_...`, checked for shape before any query (401
 * otherwise). With `accessTokens` (the MCP server), an OAuth access token is accepted too.
 */
export function bearerKey(authorization: string | null, opts: { accessTokens?: boolean } = {}): string {
  if (!authorization) throw unauthorized("Send your API key as `Authorization: Bearer ad_live_...`.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized("The Authorization header must be `Bearer <API key>`.");
  const key = match[1]!;
  if (ACCESS_TOKEN_SHAPE.test(key)) {
    if (opts.accessTokens) return key;
    throw unauthorized("OAuth access tokens are good only at the MCP server (/api/mcp), the resource they were issued for: use an API key here.");
  }
  if (!looksLikeKey(key)) throw unauthorized("That is not an AgentDraft API key (they start with ad_live_ or ad_test_).");
  return key;
}

export function requireScope(key: AuthenticatedKey, scope: ApiKeyScope | undefined): void {
  if (scope && key.scopes && !key.scopes.includes(scope)) {
    throw new AppError("insufficient_scope", `This API key does not have the "${scope}" scope.`, { required_scope: scope });
  }
}
