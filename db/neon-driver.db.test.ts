import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { startNeonWsProxy } from "../test/helpers/neon-ws-proxy";
import { resetEnvCache } from "../lib/config/env";
import { closeDb, getDb, getDriver } from "./client";
import { runMigrations } from "./migrate";
import { agents } from "./schema";
import { newAgent, newWorkspace } from "../test/helpers/fixtures";

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
    const status = await runMigrations();
    expect(await getDriver()).toBe("neon");
    expect(status.pending).toEqual([]);
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
});
