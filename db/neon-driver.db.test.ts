import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { startNeonWsProxy } from "../test/helpers/neon-ws-proxy";
import { resetEnvCache } from "../lib/platform/config/env";
import { closeDb, getDb, getDriver } from "./client";
import { runMigrations } from "./migrate";
import { agents } from "./schema";
import { newAgent, newWorkspace } from "../test/helpers/fixtures";
import { openNeonPool } from "./neon-pool";

// Drives the production driver (@neondatabase/serverless Pool over WebSocket) for real,
// through a local WebSocket-to-TCP proxy to this run's Postgres database.
describe.runIf(process.env.AGENTDRAFT_TEST_DB === "postgres")("Neon serverless driver", () => {
  let proxy: Awaited<ReturnType<typeof startNeonWsProxy>>;

  beforeAll(async () => {
    proxy = await startNeonWsProxy();
    await closeDb();
    process.env.DATABASE_DRIVER = "neon";
    process.env.NEON_WS_PROXY = `127.0.0.1:${proxy.port}/v1`;
    resetEnvCache();
  });

  afterAll(async () => {
    await closeDb();
    delete process.env.DATABASE_DRIVER;
    delete process.env.NEON_WS_PROXY;
    resetEnvCache();
    await proxy.close();
  });

  it("runs the same migrations and reports the neon driver", async () => {
    // A function file the database has no record of is applied through Neon's client too.
    await (await getDb()).execute(sql`delete from agentdraft_function_versions where name = 'agentdraft_iso'`);
    const status = await runMigrations();
    expect(await getDriver()).toBe("neon");
    expect(status.pending).toEqual([]);
    expect(status.functions.applied).toEqual(["agentdraft_iso"]);
  });

  it("runs interactive transactions with row locks and rolls back on error", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "neon-agent");
    const db = await getDb();
    await expect(
      db.transaction(async (tx) => {
        const [locked] = await tx.select().from(agents).where(eq(agents.id, agent.id)).for("update");
        expect(locked?.name).toBe("neon-agent");
        await tx.update(agents).set({ description: "changed" }).where(eq(agents.id, agent.id));
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const [after] = await db.select().from(agents).where(eq(agents.id, agent.id));
    expect(after?.description).toBeNull();
    const { rows } = await db.execute<{ n: number }>(sql`select 1 + 1 as n`);
    expect(Number(rows[0]?.n)).toBe(2);
  });

  it("closes idle connections after the short idle timeout, and attaches the pool to Vercel's function lifecycle there", async () => {
    const config = { url: process.env.DATABASE_URL!, poolMax: 2, idleTimeoutMs: 200, wsProxy: process.env.NEON_WS_PROXY };
    const pool = await openNeonPool(config);
    expect(pool.listenerCount("release")).toBe(0);
    await pool.query("select 1");
    expect(pool.totalCount).toBe(1);
    await new Promise((r) => setTimeout(r, 600));
    expect(pool.totalCount).toBe(0); // nothing left open to go stale across a freeze
    await pool.end();

    process.env.VERCEL = "1";
    try {
      const onVercel = await openNeonPool(config);
      expect(onVercel.listenerCount("release")).toBe(1); // attachDatabasePool waits for idle clients to close
      await onVercel.end();
    } finally {
      delete process.env.VERCEL;
    }
  });
});
