// @suite pooled
import { afterAll, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { closeDb, getDb, getDriver } from "./client";
import { transaction } from "./transaction";
import { executeFixed } from "./prepared";
import { resetEnvCache } from "../lib/platform/config/env";

const sum = (a: number, b: number) => sql`select ${a}::int + ${b}::int as n, 'prepared-test' as tag`;
const answer = async (q: Parameters<typeof executeFixed>[0], a: number, b: number) => (await executeFixed<{ n: number }>(q, sum(a, b))).rows[0]!.n;

describe("fixed statements as named prepared statements (db/prepared.ts)", () => {
  it("answers the same on every driver, named or not", async () => {
    const db = await getDb();
    expect(await Promise.all([answer(db, 1, 2), answer(db, 3, 4), answer(db, 5, 6)])).toEqual([3, 7, 11]);
    expect(await transaction((tx) => answer(tx, 20, 22))).toBe(42);
  });

  it("on node-postgres, prepares a text once per connection and only binds it after", async () => {
    if ((await getDriver()) !== "pg") return; // PGlite and Neon's driver run statements unnamed
    await transaction(async (tx) => {
      expect(await answer(tx, 1, 1)).toBe(2);
      expect(await answer(tx, 2, 2)).toBe(4);
      const { rows } = await tx.execute<{ name: string }>(sql`select name from pg_prepared_statements where statement like '%prepared-test%'`);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.name).toMatch(/^agentdraft_/);
    });
  });

  it("on PGlite, two copies of this code in one process (Next.js bundles it once per layer) share what the database has parsed", async () => {
    if ((await getDriver()) !== "pglite") return;
    // The copy a server action loads, beside the route handlers' copy: the same database, modules of its own.
    vi.resetModules();
    const other = await import("./prepared");
    const text = sql`select ${7}::int * ${6}::int as n, 'prepared-test-copies' as tag`;
    expect((await executeFixed<{ n: number }>(await getDb(), text)).rows[0]!.n).toBe(42);
    // Inside a transaction, where a refused Parse (42P05, "already exists") would abort the caller's work.
    expect(await transaction(async (tx) => (await other.executeFixed<{ n: number }>(tx, text)).rows[0]!.n)).toBe(42);
  });

  describe("behind a pooler that hands the statement to a connection that never saw it", () => {
    afterAll(async () => {
      delete process.env.DATABASE_POOL_MAX;
      resetEnvCache();
      await closeDb();
    });

    it("turns them off, says so once, and answers unnamed", async () => {
      if ((await getDriver()) !== "pg") return;
      // One connection, so the DEALLOCATE below reaches the one that prepared it: exactly what a
      // transaction-mode pooler does when the next statement lands on another server connection.
      await closeDb();
      process.env.DATABASE_POOL_MAX = "1";
      resetEnvCache();
      const db = await getDb();
      expect(await answer(db, 1, 2)).toBe(3);
      await db.execute(sql`deallocate all`);
      const said = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        expect(await answer(db, 2, 3)).toBe(5); // refused (26000), then run unnamed
        expect(await answer(db, 3, 4)).toBe(7);
        expect(said).toHaveBeenCalledTimes(1);
        expect(String(said.mock.calls[0]![0])).toContain("DATABASE_PREPARED_STATEMENTS=off");
        const { rows } = await db.execute(sql`select name from pg_prepared_statements`);
        expect(rows).toHaveLength(0);
      } finally {
        said.mockRestore();
      }
    });
  });
});
