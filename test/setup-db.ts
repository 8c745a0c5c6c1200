import { afterAll, beforeAll, inject } from "vitest";
import { resetEnvCache } from "../lib/config/env";
import { closeDb } from "../db/client";
import { runMigrations } from "../db/migrate";
import { startNeonWsProxy } from "./helpers/neon-ws-proxy";

// Each test file gets its own database handle: a fresh in-memory PGlite (started from the run's
// migrated snapshot, test/global-setup-pglite.ts), or a pool on this
// run's fresh Postgres database, or (the `pooled` project) the production shape: Neon's
// serverless driver over a local WebSocket proxy, through PgBouncer in transaction mode, with
// migrations on the direct URL. Tests isolate themselves further with a fresh workspace each.
const mode = process.env.AGENTDRAFT_TEST_DB;
let proxy: Awaited<ReturnType<typeof startNeonWsProxy>> | undefined;
if (mode === "postgres") {
  process.env.DATABASE_URL = inject("databaseUrl");
} else if (mode === "pooled") {
  const direct = new URL(inject("databaseUrl"));
  const pooled = new URL(process.env.TEST_POOLED_DATABASE_URL!);
  pooled.pathname = direct.pathname;
  proxy = await startNeonWsProxy();
  Object.assign(process.env, {
    DATABASE_URL: pooled.toString(),
    DATABASE_URL_UNPOOLED: direct.toString(),
    DATABASE_DRIVER: "neon",
    NEON_WS_PROXY: `127.0.0.1:${proxy.port}/v1`,
  });
} else {
  delete process.env.DATABASE_URL;
  process.env.AGENTDRAFT_PGLITE_SNAPSHOT = inject("pgliteSnapshot");
}
resetEnvCache();

// Test files share their worker's modules and process (vitest.config.ts: isolate false), so a
// file must leave process.env as it found it: a setting it leaves behind would change the next
// file's behaviour, depending on which worker it happens to share.
const envAtStart = { ...process.env };

beforeAll(async () => {
  await runMigrations();
});

afterAll(async () => {
  await closeDb();
  await proxy?.close();
  const changed = Object.keys({ ...envAtStart, ...process.env }).filter((k) => envAtStart[k] !== process.env[k]);
  for (const k of changed) {
    if (envAtStart[k] === undefined) delete process.env[k];
    else process.env[k] = envAtStart[k];
  }
  resetEnvCache();
  if (changed.length > 0) throw new Error(`This test file left process.env changed (${changed.join(", ")}): restore what it sets in an afterAll.`);
});
