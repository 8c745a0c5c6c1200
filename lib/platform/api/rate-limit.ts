import { sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { env } from "../config/env";

export type RateLimitResult = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number; retryAfterMs: number };
type Limits = { rate: number; burst: number };

export function rateLimitResult(tokens: number, allowed: boolean, { rate, burst }: Limits): RateLimitResult {
  return {
    allowed,
    limit: burst,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
    retryAfterMs: allowed ? 0 : Math.max(1, Math.ceil(((1 - tokens) / rate) * 1000)),
  };
}

/** Takes one token from a Postgres-held token bucket, in one atomic statement (Google's per-connection quota). */
export async function takeToken(bucket: string, limits: Limits = { rate: env().API_RATE_LIMIT_PER_SECOND, burst: env().API_RATE_LIMIT_BURST }): Promise<RateLimitResult> {
  const db = await getDb();
  const { rows } = await db.execute<{ left_tokens: number; ok: boolean }>(
    sql`select left_tokens, ok from agentdraft_take_tokens(array[${bucket}]::text[], array[${limits.rate}]::float8[], array[${limits.burst}]::float8[])`,
  );
  const row = rows[0]!;
  return rateLimitResult(Number(row.left_tokens), Boolean(row.ok), limits);
}
