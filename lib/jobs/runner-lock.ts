import { getDb, getDriver } from "../../db/client";
import type { RunnerLock } from "./runner";

/** The advisory lock key of the embedded runner (any constant bigint; "agentdraft-jobs"). */
export const RUNNER_LOCK_KEY = "7233611004771312723";

type PoolClient = { query: (sql: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>; release: (err?: Error | boolean) => void; on: (e: "error", cb: (err: Error) => void) => void };

/**
 * One runner across processes. On a Postgres server: a session advisory lock on a connection
 * kept for as long as this process runs jobs (if the process dies, the connection closes and
 * another process takes over). PGlite belongs to one process already, so the lock is implied.
 */
export async function acquireRunnerLock(): Promise<RunnerLock | null> {
  if ((await getDriver()) === "pglite") return { release: async () => {}, lost: () => false };
  const pool = ((await getDb()) as unknown as { $client: unknown }).$client as { connect: () => Promise<PoolClient> };
  const client = await pool.connect();
  let lost = false;
  client.on("error", () => {
    lost = true;
  });
  try {
    const { rows } = await client.query("select pg_try_advisory_lock($1::bigint) as locked", [RUNNER_LOCK_KEY]);
    if (!rows[0]?.locked) {
      client.release();
      return null;
    }
  } catch (err) {
    client.release(true);
    throw err;
  }
  return {
    lost: () => lost,
    release: async () => {
      try {
        if (!lost) await client.query("select pg_advisory_unlock($1::bigint)", [RUNNER_LOCK_KEY]);
      } finally {
        client.release(lost);
      }
    },
  };
}
