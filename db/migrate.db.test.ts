// @suite pooled
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import journal from "./migrations/meta/_journal.json";
import { getDb } from "./client";
import { runMigrations } from "./migrate";
import { migrationStatus } from "./migration-status";
import { functionsStatus } from "./functions-status";
import { readFunctionFiles } from "./function-files";

describe("migrations", () => {
  it("apply every committed migration and function file, and applying again changes nothing", async () => {
    const first = await migrationStatus();
    expect(first.pending).toEqual([]);
    expect(first.applied).toBe(journal.entries.length);
    expect(first.latest).toBe(journal.entries.at(-1)!.tag);
    const functions = (await readFunctionFiles()).length;
    expect(await runMigrations()).toEqual({ ...first, functions: { total: functions, applied: [] } });
    expect(await functionsStatus()).toEqual({ total: functions, current: functions, pending: [] });
  });

  it("load btree_gist, so exclusion constraints mixing = and && work", async () => {
    const db = await getDb();
    await db.transaction(async (tx) => {
      await tx.execute(sql`create temporary table slot_probe (
        cal text not null, span tstzrange not null,
        exclude using gist (cal with =, span with &&)) on commit drop`);
      await tx.execute(sql`insert into slot_probe values ('a', '[2025-01-01 10:00Z,2025-01-01 11:00Z)')`);
      // Half-open ranges: back to back does not overlap.
      await tx.execute(sql`insert into slot_probe values ('a', '[2025-01-01 11:00Z,2025-01-01 12:00Z)')`);
      await expect(
        tx.execute(sql`insert into slot_probe values ('a', '[2025-01-01 10:30Z,2025-01-01 10:45Z)')`),
      ).rejects.toThrow();
      // A failed statement aborts the transaction; end it on purpose.
      tx.rollback();
    }).catch((err: Error) => {
      if (!/rollback/i.test(err.message)) throw err;
    });
  });
});

describe.runIf(process.env.AGENTDRAFT_TEST_DB !== "pglite")("migrations on a server", () => {
  it("finish with a pool of one connection, on their own direct connection, and several at once apply once", async () => {
    const { closeDb } = await import("./client");
    const { resetEnvCache } = await import("../lib/platform/config/env");
    await closeDb();
    process.env.DATABASE_POOL_MAX = "1";
    resetEnvCache();
    try {
      const runs = await Promise.all([runMigrations(), runMigrations(), runMigrations()]);
      for (const status of runs) expect(status.pending).toEqual([]);
    } finally {
      delete process.env.DATABASE_POOL_MAX;
      resetEnvCache();
      await closeDb();
    }
  });
});
