import { sql } from "drizzle-orm";
import { getDb, getDriver } from "../../db/client";
import { migrationStatus } from "../../db/migration-status";
import { describeFailure } from "../describe-failure";

/**
 * What anyone may read at /api/health: whether the database answers and whether migrations are
 * pending (how many), never an error's text or the migrations' names (those go to the server
 * log and to `npx agentdraft db status`).
 */
export type Health = {
  status: "ok" | "degraded" | "down";
  database: {
    reachable: boolean;
    driver: string | null;
    latency_ms: number | null;
    migrations: { applied: number; pending: number } | null;
  };
};

/** Database reachability, driver and migration state. `degraded`: reachable but migrations are pending. */
export async function checkHealth(): Promise<Health> {
  const started = performance.now();
  try {
    const db = await getDb();
    await db.execute(sql`select 1`);
    const latency = Math.round((performance.now() - started) * 10) / 10;
    const migrations = await migrationStatus(db);
    if (migrations.pending.length) console.warn(`[health] pending migrations: ${migrations.pending.join(", ")}`);
    return {
      status: migrations.pending.length ? "degraded" : "ok",
      database: { reachable: true, driver: await getDriver(), latency_ms: latency, migrations: { applied: migrations.applied, pending: migrations.pending.length } },
    };
  } catch (err) {
    console.error(`[health] database unreachable: ${describeFailure(err).message}`);
    return { status: "down", database: { reachable: false, driver: null, latency_ms: null, migrations: null } };
  }
}
