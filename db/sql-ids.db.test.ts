// @suite pooled
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "./client";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
/** The low `width` base32 digits of n, as the database's agentdraft_base32 must write them. */
const base32 = (n: bigint, width: number) =>
  Array.from({ length: width }, (_, i) => CROCKFORD[Number((n >> BigInt(5 * (width - 1 - i))) & 31n)]).join("");

describe("ids made by the database", () => {
  it("writes base32 digits exactly as the application does", async () => {
    const db = await getDb();
    const samples = [0n, 31n, 32n, 1_796_110_970_158n, (1n << 50n) - 1n, 1048575n, 123456789n];
    for (let i = 0; i < 40; i++) samples.push(BigInt(Math.floor(Math.random() * 2 ** 50)));
    for (const width of [4, 10]) {
      const { rows } = await db.execute<{ n: string; out: string }>(
        sql`select n::text as n, agentdraft_base32(n, ${width}) as out from unnest(${sql.param(samples.map(String))}::bigint[]) as n`,
      );
      for (const r of rows) expect(r.out).toBe(base32(BigInt(r.n), width));
    }
  });

  it("makes ids of the application's shape, ordered by time", async () => {
    const db = await getDb();
    const before = Date.now();
    const { rows } = await db.execute<{ id: string }>(sql`select agentdraft_new_id('aud') as id from generate_series(1, 50)`);
    for (const { id } of rows) {
      expect(id).toMatch(/^aud_[0-9a-hjkmnp-tv-z]{26}$/);
      const ms = [...id.slice(4, 14)].reduce((acc, c) => acc * 32 + CROCKFORD.indexOf(c), 0);
      expect(ms).toBeGreaterThanOrEqual(before - 1000);
      expect(ms).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });
});
