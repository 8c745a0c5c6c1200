import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "drizzle-orm";
import { getDb, getDriver } from "../../../db/client";

/** A held single-runner lock; `lost()` turns true once it can no longer be trusted. */
export type RunnerLock = { release: () => Promise<void>; lost: () => boolean };

/** The deployment's engine lease. (Tests sharing one database name their own.) */
export const LEASE_NAME = "embedded-engine";
export const LEASE_TTL_MS = 30_000;

/**
 * One embedded engine per deployment. On a Postgres server: a lease row in job_runner_leases,
 * taken when free or expired and renewed every ttl/3 (a row, not a session advisory lock, so it
 * works through a transaction-mode pooler such as Neon's). If this process dies or stalls past
 * the TTL, another takes over. PGlite belongs to one process already, so the lock is implied.
 */
export async function acquireRunnerLock(o: { ttlMs?: number; holder?: string; name?: string } = {}): Promise<RunnerLock | null> {
  const name = o.name ?? LEASE_NAME;
  if ((await getDriver()) === "pglite") return { release: async () => {}, lost: () => false };
  const ttlMs = o.ttlMs ?? LEASE_TTL_MS;
  const holder = o.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const db = await getDb();
  const take = async (): Promise<boolean> => {
    const { rows } = await db.execute<{ holder: string }>(sql`
      insert into job_runner_leases (name, holder, expires_at)
      values (${name}, ${holder}, clock_timestamp() + make_interval(secs => ${ttlMs / 1000}))
      on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where job_runner_leases.holder = excluded.holder or job_runner_leases.expires_at < clock_timestamp()
      returning holder`);
    return rows.length > 0;
  };
  if (!(await take())) return null;
  // Lost once refused (another process holds it) or once the last renewal could have expired.
  let refused = false;
  let renewedAt = Date.now();
  const timer = setInterval(() => {
    take()
      .then((ok) => {
        if (ok) renewedAt = Date.now();
        else refused = true;
      })
      .catch(() => {}); // a failed renewal is not yet a lost lease; its age decides
  }, ttlMs / 3);
  timer.unref();
  return {
    lost: () => refused || Date.now() - renewedAt > ttlMs * 0.8,
    release: async () => {
      clearInterval(timer);
      await db.execute(sql`delete from job_runner_leases where name = ${name} and holder = ${holder}`).catch(() => {});
    },
  };
}
