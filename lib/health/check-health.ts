import { sql } from "drizzle-orm";
import { getDb, getDriver } from "../../db/client";
import { migrationStatus } from "../../db/migration-status";
import { describeFailure } from "../describe-failure";

export type Health = {
  status: "ok" | "degraded" | "down";
  database: {
    reachable: boolean;
    driver: string | null;
    latency_ms: number | null;
    migrations: { applied: number; pending: string[]; latest: string | null } | null;
    error?: string;
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
    return {
      status: migrations.pending.length ? "degraded" : "ok",
      database: { reachable: true, driver: await getDriver(), latency_ms: latency, migrations },
    };
  } catch (err) {
    return {
      status: "down",
      database: { reachable: false, driver: null, latency_ms: null, migrations: null, error: describeFailure(err).message },
    };
  }
}
