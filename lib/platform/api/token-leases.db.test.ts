// @suite pooled
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { operatorActor } from "../actor";
import { revokeKey } from "../../domains/api-keys/revoke-key";
import { resetEnvCache } from "../config/env";

type Grant = { left_tokens: number; ok: boolean; granted: number };
async function lease(bucket: string, rate: number, burst: number): Promise<Grant> {
  const db = await getDb();
  const { rows } = await db.execute<Grant>(sql`select left_tokens, ok, granted from agentdraft_lease_tokens(array[${bucket}]::text[], array[${rate}]::float8[], array[${burst}]::float8[])`);
  return { left_tokens: Number(rows[0]!.left_tokens), ok: Boolean(rows[0]!.ok), granted: Number(rows[0]!.granted) };
}
const unique = (p: string) => `${p}:${Math.random().toString(36).slice(2)}`;

describe("agentdraft_lease_tokens", () => {
  it("grants 5 % of the stock, at most 50 ms of refill, and exactly one token near the limit", async () => {
    expect(await lease(unique("t"), 1000, 1000)).toMatchObject({ ok: true, granted: 50 });
    expect(await lease(unique("t"), 100, 1000)).toMatchObject({ ok: true, granted: 5 });
    const slow = unique("t");
    const grants = [];
    for (let i = 0; i < 7; i++) grants.push(await lease(slow, 0.01, 5));
    expect(grants.map((g) => g.granted)).toEqual([1, 1, 1, 1, 1, 0, 0]);
    expect(grants.map((g) => g.ok)).toEqual([true, true, true, true, true, false, false]);
  });

  it("never grants more than the bucket holds when 60 takers race", async () => {
    const bucket = unique("race");
    const db = await getDb();
    // The bucket's own clock, as the function wrote it (epoch seconds, to the microsecond).
    const row = async () => {
      const { rows } = await db.execute<{ tokens: number; at: number }>(sql`select tokens, extract(epoch from updated_at)::float8 as at from rate_limit_buckets where bucket = ${bucket}`);
      return { tokens: Number(rows[0]!.tokens), at: Number(rows[0]!.at) };
    };
    const first = await lease(bucket, 100, 200);
    const opened = await row();
    const grants = await Promise.all(Array.from({ length: 60 }, () => lease(bucket, 100, 200)));
    const closed = await row();
    // Every token granted came out of the bucket: its 200, plus what it refilled (100 a second)
    // between its first and its last write, less what it still holds.
    const total = first.granted + grants.reduce((n, g) => n + g.granted, 0);
    // (updated_at keeps microseconds: its rounding is worth 1e-4 of a token at 100 a second.)
    expect(total).toBeLessThanOrEqual(200 + 100 * (closed.at - opened.at) - closed.tokens + 1e-3);
    expect(grants.every((g) => g.ok === g.granted > 0)).toBe(true);
  });
});

// Limits far above what a test sends: leases of 50 tokens (50 ms of a 1000/s refill).
const LIMITS = {
  API_RATE_LIMIT_BURST: "100000",
  API_RATE_LIMIT_PER_SECOND: "1000",
  API_WORKSPACE_RATE_LIMIT_BURST: "100000",
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: "1000",
};
const { api } = serveApiForTests();
beforeAll(() => {
  Object.assign(process.env, LIMITS);
  resetEnvCache();
});
afterAll(() => {
  for (const k of Object.keys(LIMITS)) delete process.env[k];
  resetEnvCache();
});

/** The transaction that last wrote a bucket's row: each write of the door changes it. */
async function writer(bucket: string): Promise<string | null> {
  const db = await getDb();
  const { rows } = await db.execute<{ xmin: string }>(sql`select xmin::text as xmin from rate_limit_buckets where bucket = ${bucket}`);
  return rows[0]?.xmin ?? null;
}

/** When a bucket's row was last written (epoch seconds, to the microsecond). */
async function writtenAt(bucket: string): Promise<number> {
  const db = await getDb();
  const { rows } = await db.execute<{ at: number }>(sql`select extract(epoch from updated_at)::float8 as at from rate_limit_buckets where bucket = ${bucket}`);
  return Number(rows[0]!.at);
}

describe("the door with token leases", () => {
  it("writes a busy key's bucket once per lease, not once per request", async () => {
    const { workspace } = await newWorkspace();
    const { row, key } = await newKey(workspace.id);
    const writers = new Set<string | null>();
    const writes: number[] = []; // each write's updated_at (epoch seconds), as the door wrote it
    for (let i = 0; i < 40; i++) {
      const res = await api("/api/v1/me", { key });
      expect(res.status).toBe(200);
      const at = await writer(`key:${row.id}`);
      if (!writers.has(at)) writes.push(await writtenAt(`key:${row.id}`));
      writers.add(at);
    }
    // 40 requests, leases of 50 tokens renewed in their last third: of their second, or of their
    // tokens. So one write per 2/3 s of the door's own clock (from its first write to its last)
    // and per 33 requests, whatever the machine's speed.
    const span = writes[writes.length - 1]! - writes[0]!;
    const leases = 1 + Math.ceil(span / (2 / 3)) + Math.ceil(40 / 33);
    expect(writers.size).toBeLessThanOrEqual(leases);
    expect((await writer(`ws:${workspace.id}`)) === null).toBe(false);
  });

  it("still refuses a revoked key on its next request, leased tokens or not", async () => {
    const { workspace } = await newWorkspace();
    const { row, key } = await newKey(workspace.id);
    expect((await api("/api/v1/me", { key })).status).toBe(200);
    await revokeKey(operatorActor(workspace.id), row.id);
    expect((await api("/api/v1/me", { key })).status).toBe(401);
  });
});
