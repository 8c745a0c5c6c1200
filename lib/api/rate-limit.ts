import { sql, type SQL } from "drizzle-orm";
import { getDb } from "../../db/client";
import { env } from "../config/env";

export type RateLimitResult = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number; retryAfterMs: number };
type Limits = { rate: number; burst: number };
/** A bucket to take a token from: its name (SQL, null to skip it), the prefix all its names share, and its limits. */
export type Bucket = Limits & { name: SQL; prefix: string };

/**
 * The statement that takes one token from each bucket: refill = min(burst, tokens + elapsed *
 * rate); one is taken when refill >= 1. The row lock of ON CONFLICT DO UPDATE makes concurrent
 * requests on one bucket take turns, so the limit holds across any number of server instances.
 * Each bucket's limits are chosen by its name's prefix. Returns (bucket, tokens, allowed).
 */
export function bucketUpsert(buckets: Bucket[]): SQL {
  const pick = (field: "rate" | "burst") =>
    sql`(case ${sql.join(buckets.map((b) => sql`when b.bucket like ${`${b.prefix}%`} then ${b[field]}::float8`), sql` `)} end)`;
  const refill = sql`least(${pick("burst")}, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * ${pick("rate")})`;
  const rows = sql.join(buckets.map((b) => sql`(${b.name}, ${b.burst - 1}::float8)`), sql`, `);
  return sql`
    insert into rate_limit_buckets as b (bucket, tokens, updated_at, allowed)
    select n.name, n.tokens, clock_timestamp(), true from (values ${rows}) as n(name, tokens) where n.name is not null
    on conflict (bucket) do update set
      tokens = case when ${refill} >= 1 then ${refill} - 1 else ${refill} end,
      allowed = ${refill} >= 1,
      updated_at = clock_timestamp()
    returning bucket, tokens, allowed`;
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
  const { rows } = await db.execute<{ tokens: number; allowed: boolean }>(bucketUpsert([{ name: sql`${bucket}::text`, prefix: bucket, ...limits }]));
  const row = rows[0]!;
  return rateLimitResult(Number(row.tokens), Boolean(row.allowed), limits);
}
