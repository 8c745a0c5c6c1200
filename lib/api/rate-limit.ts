import { sql, type SQL } from "drizzle-orm";
import { getDb } from "../../db/client";
import { env } from "../config/env";

export type RateLimitResult = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number; retryAfterMs: number };
type Limits = { rate: number; burst: number };

/**
 * The statement that takes one token from a bucket (a subquery naming it, or none: then it does
 * nothing): refill = min(burst, tokens + elapsed * rate); one is taken when refill >= 1. The row
 * lock of ON CONFLICT DO UPDATE makes concurrent requests on one bucket take turns, so the limit
 * holds across any number of server instances. Returns (tokens, allowed).
 */
export function bucketUpsert(bucket: SQL, { rate, burst }: Limits): SQL {
  const refill = sql`least(${burst}::float8, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * ${rate}::float8)`;
  return sql`
    insert into rate_limit_buckets as b (bucket, tokens, updated_at, allowed)
    select name, ${burst - 1}::float8, clock_timestamp(), true from (select ${bucket} as name) as n where name is not null
    on conflict (bucket) do update set
      tokens = case when ${refill} >= 1 then ${refill} - 1 else ${refill} end,
      allowed = ${refill} >= 1,
      updated_at = clock_timestamp()
    returning tokens, allowed`;
}

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
  const { rows } = await db.execute<{ tokens: number; allowed: boolean }>(bucketUpsert(sql`${bucket}::text`, limits));
  const row = rows[0]!;
  return rateLimitResult(Number(row.tokens), Boolean(row.allowed), limits);
}
