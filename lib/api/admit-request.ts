import { sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { agents, type ApiKeyScope } from "../../db/schema";
import { jsonValue, rowFromJson } from "../../db/row-json";
import type { StoredResponse } from "./idempotency";
import { AppError } from "../errors";
import { env } from "../config/env";
import { hashKey } from "../api-keys/key-material";
import { bearerKey, LAST_USED_PRECISION_SECONDS, unauthorized, type AuthenticatedKey } from "./authenticate";
import { rateLimitResult, type RateLimitResult } from "./rate-limit";
import { dropLease, keepLease, spendLeased } from "./token-leases";
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
  key_granted: number | null;
  ws_tokens: number | string | null;
  ws_allowed: boolean | null;
  ws_granted: number | null;
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
 * crash forgets a few tokens, never a hold, and a request costs no WAL flush. A well-stocked
 * bucket grants a small lease of tokens that this instance spends locally (token-leases.ts): a
 * busy key's next requests take no token from the database, and their door writes nothing. The
 * key is still looked up every time, so a revocation takes effect on the next request. The key's
 * limit state goes into `headers`.
 */
export async function admitRequest(req: Request, headers: Headers, idempotencyKey: string | null = null): Promise<Admitted> {
  const traceId = readTraceId(req.headers);
  const secret = bearerKey(req.headers.get("authorization"));
  const e = env();
  const perKey = { rate: e.API_RATE_LIMIT_PER_SECOND, burst: e.API_RATE_LIMIT_BURST };
  const perWorkspace = { rate: e.API_WORKSPACE_RATE_LIMIT_PER_SECOND, burst: e.API_WORKSPACE_RATE_LIMIT_BURST };
  const hash = hashKey(secret);
  const keyBucket = `key:${hash}`;
  const knownWorkspace = workspaceOfKey.get(hash);
  const keyLeased = spendLeased(keyBucket);
  const wsLeased = knownWorkspace ? spendLeased(`ws:${knownWorkspace}`) : null;
  const db = await getDb();
  const { rows } = await db.execute<{ out: AdmitRow | string | null }>(sql`
    select agentdraft_admit(${hash}, ${idempotencyKey}, ${LAST_USED_PRECISION_SECONDS}::int,
      ${perKey.rate}::float8, ${perKey.burst}::float8, ${perWorkspace.rate}::float8, ${perWorkspace.burst}::float8,
      ${!keyLeased}, ${!wsLeased}) as out`);
  const row = rows[0]?.out ? jsonValue<AdmitRow>(rows[0].out) : undefined;
  if (!row || row.revoked) {
    dropLease(keyBucket);
    workspaceOfKey.delete(hash);
    throw unauthorized(row ? "This API key has been revoked." : "This API key is not valid.");
  }
  remember(hash, row.workspace_id);
  const wsBucket = `ws:${row.workspace_id}`;
  const limit = leasedOrTaken(keyLeased, keyBucket, row.key_tokens, row.key_allowed, row.key_granted, perKey);
  const workspace = leasedOrTaken(wsLeased, wsBucket, row.ws_tokens, row.ws_allowed, row.ws_granted, perWorkspace);
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

/** The workspace of each key seen here (a key never changes workspace), to spend its leased workspace tokens before the lookup. */
const workspaceOfKey = new Map<string, string>();
function remember(hash: string, workspaceId: string) {
  if (workspaceOfKey.has(hash)) return;
  if (workspaceOfKey.size >= 10_000) workspaceOfKey.delete(workspaceOfKey.keys().next().value!);
  workspaceOfKey.set(hash, workspaceId);
}

/** A bucket's answer: the token this instance spent from its lease, or the one (and the lease) the door took. */
function leasedOrTaken(
  leased: { remaining: number } | null,
  bucket: string,
  tokens: number | string | null,
  allowed: boolean | null,
  granted: number | null,
  limits: { rate: number; burst: number },
): RateLimitResult {
  if (leased) return { allowed: true, limit: limits.burst, remaining: leased.remaining, retryAfterSeconds: 0, retryAfterMs: 0 };
  const left = Number(tokens);
  if (allowed) keepLease(bucket, Number(granted ?? 1), left);
  return rateLimitResult(left + Math.max(0, Number(granted ?? 1) - 1), Boolean(allowed), limits);
}
