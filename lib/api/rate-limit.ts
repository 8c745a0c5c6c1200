import { sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { env } from "../config/env";

export type RateLimitResult = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number; retryAfterMs: number };

/**
 * Takes one token from a Postgres-held token bucket, in one atomic statement, so the limit
 * holds across any number of server instances. Refill is computed from elapsed time.
 */
export async function takeToken(
  bucket: string,
  limits: { rate: number; burst: number } = { rate: env().API_RATE_LIMIT_PER_SECOND, burst: env().API_RATE_LIMIT_BURST },
): Promise<RateLimitResult> {
  const { rate, burst } = limits;
  const db = await getDb();
  // refill = min(burst, tokens + elapsed * rate); take one when refill >= 1. The row lock of
  // ON CONFLICT DO UPDATE makes concurrent requests on one key take turns.
  const refill = sql`least(${burst}::float8, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * ${rate}::float8)`;
  const { rows } = await db.execute<{ tokens: number; allowed: boolean }>(sql`
    insert into rate_limit_buckets as b (bucket, tokens, updated_at, allowed)
    values (${bucket}, ${burst - 1}::float8, clock_timestamp(), true)
    on conflict (bucket) do update set
      tokens = case when ${refill} >= 1 then ${refill} - 1 else ${refill} end,
      allowed = ${refill} >= 1,
      updated_at = clock_timestamp()
    returning tokens, allowed`);
  const row = rows[0]!;
  const tokens = Number(row.tokens);
  const allowed = Boolean(row.allowed);
  return {
    allowed,
    limit: burst,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
    retryAfterMs: allowed ? 0 : Math.max(1, Math.ceil(((1 - tokens) / rate) * 1000)),
  };
}

/**
 * Takes one token from each bucket in one statement (one round trip): a request's key and its
 * workspace. Results in the order given; the request is allowed only when every bucket allows.
 */
export async function takeTokens(buckets: { bucket: string; rate: number; burst: number }[]): Promise<RateLimitResult[]> {
  if (buckets.length === 1) return [await takeToken(buckets[0]!.bucket, buckets[0]!)];
  const db = await getDb();
  // ON CONFLICT DO UPDATE sees only the proposed row (excluded): each bucket's rate and burst
  // are chosen by name there.
  const pick = (field: "rate" | "burst") =>
    sql`(case ${sql.join(buckets.map((b) => sql`when b.bucket = ${b.bucket} then ${b[field]}::float8`), sql` `)} end)`;
  const refill = sql`least(${pick("burst")}, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * ${pick("rate")})`;
  const values = sql.join(buckets.map((b) => sql`(${b.bucket}, ${b.burst - 1}::float8, clock_timestamp(), true)`), sql`, `);
  const { rows } = await db.execute<{ bucket: string; tokens: number; allowed: boolean }>(sql`
    insert into rate_limit_buckets as b (bucket, tokens, updated_at, allowed)
    values ${values}
    on conflict (bucket) do update set
      tokens = case when ${refill} >= 1 then ${refill} - 1 else ${refill} end,
      allowed = ${refill} >= 1,
      updated_at = clock_timestamp()
    returning bucket, tokens, allowed`);
  return buckets.map(({ bucket, rate, burst }) => {
    const row = rows.find((r) => r.bucket === bucket)!;
    const tokens = Number(row.tokens);
    const allowed = Boolean(row.allowed);
    return {
      allowed,
      limit: burst,
      remaining: Math.max(0, Math.floor(tokens)),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
      retryAfterMs: allowed ? 0 : Math.max(1, Math.ceil(((1 - tokens) / rate) * 1000)),
    };
  });
}
