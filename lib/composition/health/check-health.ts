import { sql } from "drizzle-orm";
import { getDb, getDriver } from "../../../db/client";
import { migrationStatus } from "../../../db/migration-status";
import { describeFailure } from "../../platform/describe-failure";
import { backgroundHealth, type BackgroundHealth } from "./background-health";
import { startupProblem } from "../../platform/config/startup-gate";

export type HealthStatus = "ok" | "degraded" | "down";

/**
 * /api/health. Anyone may read `status` (ok, degraded, down); the details are for an API key
 * of any scope or a signed-in member: database reachability, driver and migration counts, and
 * how far their own workspace's background work is behind (never another tenant's). Never an
 * error's text or the migrations' names (those go to the server log and to `npx agentdraft db status`).
 */
export type Health = {
  status: HealthStatus;
  database?: {
    reachable: boolean;
    driver: string | null;
    latency_ms: number | null;
    migrations: { applied: number; pending: number } | null;
  };
  background?: BackgroundHealth | null;
  /** Why the start-up checks refuse to serve (lib/platform/config/startup-gate.ts), when they do. */
  startup_problem?: string | null;
};

/**
 * `degraded`: reachable, but migrations are pending or some background work, in any workspace,
 * has been due far longer than it should. `details`: the viewer's workspace, whose queues are shown.
 */
export async function checkHealth(o: { details?: { workspaceId: string } | null } = {}): Promise<Health> {
  const started = performance.now();
  let health: Omit<Required<Health>, "startup_problem"> & Pick<Health, "startup_problem">;
  try {
    const db = await getDb();
    await db.execute(sql`select 1`);
    const latency = Math.round((performance.now() - started) * 10) / 10;
    const migrations = await migrationStatus(db);
    if (migrations.pending.length) console.warn(`[health] pending migrations: ${migrations.pending.join(", ")}`);
    // Before migrations ran, the queues' tables may not exist yet.
    const background = migrations.pending.length ? null : await backgroundHealth(db, o.details?.workspaceId ?? null);
    health = {
      status: migrations.pending.length || background?.stale ? "degraded" : "ok",
      database: { reachable: true, driver: await getDriver(), latency_ms: latency, migrations: { applied: migrations.applied, pending: migrations.pending.length } },
      background: background?.workspace ?? null,
    };
  } catch (err) {
    console.error(`[health] database unreachable: ${describeFailure(err).message}`);
    health = { status: "down", database: { reachable: false, driver: null, latency_ms: null, migrations: null }, background: null };
  }
  // A deployment the start-up checks refuse is not ok, whatever its database says.
  const problem = await startupProblem();
  if (problem && health.status === "ok") health.status = "degraded";
  health.startup_problem = problem?.reason ?? null;
  return o.details ? health : { status: health.status };
}
