import { sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { agents, type ApiKeyScope } from "../../db/schema";
import { jsonValue, rowFromJson } from "../../db/row-json";
import type { StoredResponse } from "./idempotency";
import { AppError } from "../errors";
import { env } from "../config/env";
import { hashKey } from "../api-keys/key-material";
import { bearerKey, LAST_USED_PRECISION_SECONDS, unauthorized, type AuthenticatedKey } from "./authenticate";
import { rateLimitResult } from "./rate-limit";
import { readTraceId } from "./request-ids";

/** What agentdraft_admit (db/migrations) answers for a known key. */
type AdmitRow = {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  scopes: ApiKeyScope[] | null;
  mode: "live" | "test";
  revoked: boolean;
  key_tokens: number | string | null;
  key_allowed: boolean | null;
  ws_tokens: number | string | null;
  ws_allowed: boolean | null;
  workspace_name: string;
  agent: Record<string, unknown> | null;
  stored: StoredResponse | null;
};

export type Admitted = {
  key: AuthenticatedKey;
  traceId: string | undefined;
  /** The response stored for the request's Idempotency-Key, when one was asked for and is live. */
  stored: StoredResponse | null;
};

/**
 * The door of every key-authenticated endpoint (/api/v1 and /api/mcp), in one round trip: one
 * statement (agentdraft_admit, whose plans Postgres keeps per connection) finds the key by hash,
 * takes a token from its rate-limit bucket and one from its workspace's (many keys of one tenant
 * do not multiply its share), refreshes `last_used_at` only when it is a minute old, and reads
 * the workspace's name, the key's agent and the response stored for the request's
 * Idempotency-Key, so most requests need no second read. The buckets are an UNLOGGED table: a
 * crash forgets a few tokens, never a hold, and a request costs no WAL flush. The key's limit
 * state goes into `headers`.
 */
export async function admitRequest(req: Request, headers: Headers, idempotencyKey: string | null = null): Promise<Admitted> {
  const traceId = readTraceId(req.headers);
  const secret = bearerKey(req.headers.get("authorization"));
  const e = env();
  const perKey = { rate: e.API_RATE_LIMIT_PER_SECOND, burst: e.API_RATE_LIMIT_BURST };
  const perWorkspace = { rate: e.API_WORKSPACE_RATE_LIMIT_PER_SECOND, burst: e.API_WORKSPACE_RATE_LIMIT_BURST };
  const db = await getDb();
  const { rows } = await db.execute<{ out: AdmitRow | string | null }>(sql`
    select agentdraft_admit(${hashKey(secret)}, ${idempotencyKey}, ${LAST_USED_PRECISION_SECONDS}::int,
      ${perKey.rate}::float8, ${perKey.burst}::float8, ${perWorkspace.rate}::float8, ${perWorkspace.burst}::float8) as out`);
  const row = rows[0]?.out ? jsonValue<AdmitRow>(rows[0].out) : undefined;
  if (!row) throw unauthorized("This API key is not valid.");
  if (row.revoked) throw unauthorized("This API key has been revoked.");
  const limit = rateLimitResult(Number(row.key_tokens), Boolean(row.key_allowed), perKey);
  const workspace = rateLimitResult(Number(row.ws_tokens), Boolean(row.ws_allowed), perWorkspace);
  headers.set("ratelimit-limit", String(limit.limit));
  headers.set("ratelimit-remaining", String(limit.remaining));
  if (!limit.allowed) {
    throw new AppError("rate_limited", `Too many requests for this API key. Retry in ${limit.retryAfterSeconds} s.`, {}, { "retry-after": String(limit.retryAfterSeconds) });
  }
  if (!workspace.allowed) {
    throw new AppError("rate_limited", `Too many requests for this workspace (all its keys together). Retry in ${workspace.retryAfterSeconds} s.`, { scope: "workspace" }, { "retry-after": String(workspace.retryAfterSeconds) });
  }
  const key: AuthenticatedKey = {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    scopes: row.scopes,
    mode: row.mode,
    workspaceName: row.workspace_name,
    agent: row.agent ? rowFromJson(agents, row.agent) : null,
  };
  return { key, traceId, stored: row.stored ?? null };
}
