import { sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { agents, type ApiKeyScope } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import type { DeferredDoor } from "../../../db/effect";
import { executeFixed } from "../../../db/prepared";
import type { StoredResponse } from "./idempotency";
import { AppError } from "../errors";
import { env } from "../config/env";
import { hashKey } from "./key-material";
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
export async function admitRequest(req: Request, headers: Headers, idempotencyKey: string | null = null, opts: { accessTokens?: boolean } = {}): Promise<Admitted> {
  const door = prepareDoor(req, idempotencyKey, undefined, opts.accessTokens);
  const { rows } = await executeFixed<{ out: AdmitRow | string | null }>(await getDb(), sql`select ${door.call} as out`);
  return settleDoor(door, rows[0]?.out ?? null, headers);
}

/**
 * The door deferred into the request's one effect statement (db/effect.ts withDeferredDoor), for
 * an operation whose state change is one statement: the key, its scopes, rate limits and
 * revocation are decided in that statement, and the change happens only if the door admits.
 * Possible once this instance has admitted the key (its workspace, agent and scopes never
 * change; revocation is what the statement checks). Null otherwise: admit first.
 */
export function deferDoor(
  req: Request,
  idempotencyKey: string | null = null,
): (Admitted & { door: DeferredDoor; settle: (headers: Headers) => Admitted; admitAlone: () => Promise<unknown> }) | null {
  const hash = hashKey(bearerKey(req.headers.get("authorization")));
  const key = identities.get(hash);
  if (!key) return null;
  const prepared = prepareDoor(req, idempotencyKey, hash);
  const door: DeferredDoor = {
    admit: prepared.call,
    admits: sql`(d.door is not null and not (d.door->>'revoked')::boolean
      and coalesce((d.door->>'key_allowed')::boolean, true) and coalesce((d.door->>'ws_allowed')::boolean, true))`,
  };
  return {
    key,
    traceId: prepared.traceId,
    stored: null,
    door,
    settle: (headers) => settleDoor(prepared, door.answer ?? null, headers),
    // The same call on its own, when no statement carried it (its leased tokens are spent once).
    admitAlone: async () => (await executeFixed<{ out: unknown }>(await getDb(), sql`select ${prepared.call} as out`)).rows[0]?.out ?? null,
  };
}

type PreparedDoor = ReturnType<typeof prepareDoor>;

/** The door's statement for this request (agentdraft_admit), its leased tokens spent first. */
function prepareDoor(req: Request, idempotencyKey: string | null, hashed?: string, accessTokens = false) {
  const traceId = readTraceId(req.headers);
  const hash = hashed ?? hashKey(bearerKey(req.headers.get("authorization"), { accessTokens }));
  const e = env();
  const perKey = { rate: e.API_RATE_LIMIT_PER_SECOND, burst: e.API_RATE_LIMIT_BURST };
  const perWorkspace = { rate: e.API_WORKSPACE_RATE_LIMIT_PER_SECOND, burst: e.API_WORKSPACE_RATE_LIMIT_BURST };
  const keyBucket = `key:${hash}`;
  const knownWorkspace = identities.get(hash)?.workspaceId;
  const keyLeased = spendLeased(keyBucket);
  const wsLeased = knownWorkspace ? spendLeased(`ws:${knownWorkspace}`) : null;
  const call = sql`agentdraft_admit(${hash}, ${idempotencyKey}, ${LAST_USED_PRECISION_SECONDS}::int,
      ${perKey.rate}::float8, ${perKey.burst}::float8, ${perWorkspace.rate}::float8, ${perWorkspace.burst}::float8,
      ${!keyLeased}, ${!wsLeased})`;
  return { traceId, hash, keyBucket, keyLeased, wsLeased, perKey, perWorkspace, call };
}

/** What the door answered, as the request's key and limits (headers), or a 401 / 429. */
function settleDoor(door: PreparedDoor, out: unknown, headers: Headers): Admitted {
  const row = out ? jsonValue<AdmitRow>(out) : undefined;
  if (!row || row.revoked) {
    dropLease(door.keyBucket);
    identities.delete(door.hash);
    throw unauthorized(row ? "This API key (or the OAuth grant behind this token) has been revoked." : "This API key is not valid, or this access token has expired.");
  }
  const wsBucket = `ws:${row.workspace_id}`;
  const limit = leasedOrTaken(door.keyLeased, door.keyBucket, row.key_tokens, row.key_allowed, row.key_granted, door.perKey);
  const workspace = leasedOrTaken(door.wsLeased, wsBucket, row.ws_tokens, row.ws_allowed, row.ws_granted, door.perWorkspace);
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
  remember(door.hash, { id: key.id, workspaceId: key.workspaceId, agentId: key.agentId, scopes: key.scopes, mode: key.mode });
  return { key, traceId: door.traceId, stored: row.stored ?? null };
}

/**
 * Each key seen here, by hash, as far as it never changes (id, workspace, agent, scopes, mode):
 * to spend its leased workspace tokens before the lookup, and to defer the door into a
 * statement. A revoked or unknown key is forgotten by its 401.
 */
const identities = new Map<string, AuthenticatedKey>();
function remember(hash: string, key: AuthenticatedKey) {
  if (identities.has(hash)) return;
  if (identities.size >= 10_000) identities.delete(identities.keys().next().value!);
  identities.set(hash, key);
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
