import { afterAll, inject } from "vitest";
import { resetEnvCache } from "../lib/platform/config/env";
import { closeDb, openPglite } from "../db/client";
import { resetToSnapshot } from "./pglite-reset";
import { startNeonWsProxy } from "./helpers/neon-ws-proxy";
import { onServer } from "./global-setup-postgres";
import { guardProcessEnv } from "./env-guard";

// Each test file gets a fresh database of its own: an in-memory PGlite started from the run's
// migrated snapshot (test/global-setup-pglite.ts), or a copy of the run's migrated template
// database on the Postgres server (test/global-setup-postgres.ts) reached with node-postgres, or
// (the `pooled` project) the same through production's shape: Neon's serverless driver over a
// local WebSocket proxy, through PgBouncer in transaction mode, with migrations on the direct URL.
// Tests isolate themselves further with a fresh workspace each. The snapshot and the template are
// migrated once per run (migrations and function files), so a file's database needs no migrating.
const mode = process.env.AGENTDRAFT_TEST_DB;
// On a server, the last file of this worker closed its database in its afterAll; work it left
// finishing after that (a response's after-work, a sealer's kick) may have opened it again, on that
// file's URL. Dropped here, so this file's first getDb() opens this file's database, not the last
// one's. On PGlite the worker keeps its database and puts it back to the run's snapshot instead
// (test/pglite-reset.ts: opening a new one per file was half the embedded run's CPU),
// unless it cannot be: then it is closed, and this file's first getDb() opens a new one.
const embedded = mode !== "postgres" && mode !== "pooled";
if (!embedded) await closeDb();
else {
  const pg = await openPglite();
  if (pg && !(await resetToSnapshot(pg, inject("pgliteSnapshotShape")))) await closeDb();
}
let proxy: Awaited<ReturnType<typeof startNeonWsProxy>> | undefined;
if (mode === "postgres" || mode === "pooled") {
  // A database of this file's own, copied from the run's migrated template.
  const template = new URL(inject("databaseTemplateUrl"));
  const fileDatabase = `${template.pathname.slice(1)}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await onServer(`create database "${fileDatabase}" template "${template.pathname.slice(1)}"`);
  const direct = new URL(template);
  direct.pathname = `/${fileDatabase}`;
  if (mode === "postgres") process.env.DATABASE_URL = direct.toString();
  else {
    const pooled = new URL(process.env.TEST_POOLED_DATABASE_URL!);
    pooled.pathname = direct.pathname;
    proxy = await startNeonWsProxy();
    Object.assign(process.env, {
      DATABASE_URL: pooled.toString(),
      DATABASE_URL_UNPOOLED: direct.toString(),
      DATABASE_DRIVER: "neon",
      NEON_WS_PROXY: `127.0.0.1:${proxy.port}/v1`,
    });
  }
} else {
  delete process.env.DATABASE_URL;
  process.env.AGENTDRAFT_PGLITE_SNAPSHOT = inject("pgliteSnapshot");
}
resetEnvCache();

// Registered before the afterAll below, so it runs after it (hooks run as a stack): the database
// is closed first, then process.env checked and put back.
guardProcessEnv();

afterAll(async () => {
  // The embedded database stays open for the worker's next file, which resets it.
  if (!embedded) await closeDb();
  await proxy?.close();
  // The file's database is dropped with the run's template (test/global-setup-postgres.ts), after
  // every worker has exited: dropping it here, with (force), cut connections that work the file
  // started was still closing (unhandled errors that fail the run).
});
