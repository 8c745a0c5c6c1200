import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { resetEnvCache } from "../lib/platform/config/env";
import { closeDb } from "../db/client";
import { runMigrations } from "../db/migrate";
import { runLoad, type LoadOptions } from "../cli/loadtest/run-load";
import { httpClient } from "../cli/loadtest/http-client";
import { createCalendars, runHoldsScenario } from "../cli/loadtest/holds-scenario";
import type { Summary } from "../cli/loadtest/stats";
import { parseDbPaths, type DbPath } from "./paths";
import { startPgBouncer } from "./pgbouncer";
import { startNeonWsProxy } from "../test/helpers/neon-ws-proxy";
import { applyCoreSplit, coreSplitInForce, keepBackendsOffServerCore, keepHelpersOffServerCore, serverCommand } from "./cores";

export type BenchDatabase = {
  /** The path's name (`postgres`, `pooled`, `neon`…): results and rows carry it. */
  label: DbPath;
  /** What the server is given: its DATABASE_URL and driver settings for this path. */
  env: Record<string, string>;
  /** What this process uses to migrate and to make fixtures: the database direct (node-postgres), or PGlite. */
  setupEnv: Record<string, string>;
  /** What the path is, in a sentence (printed with the results). */
  about: string;
  drop: () => Promise<void>;
};

/**
 * Makes the benchmark's database for one path (`--db`, bench/paths.ts): for every path but
 * `pglite`, a fresh database on the local server (BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres), dropped after, reached by the server directly,
 * through PgBouncer in transaction mode (`pooled`), or with Neon's serverless driver through a
 * local WebSocket-to-TCP proxy (`neon`); the default is a fresh embedded PGlite directory. With
 * `--server-core` (bench/cores.ts) the server gets core 0 alone, and this process, the pooler and
 * the database's backends the others.
 */
export async function benchDatabase(argv: string[]): Promise<BenchDatabase> {
  applyCoreSplit();
  const paths = parseDbPaths(argv);
  if (paths.length !== 1) throw new Error("benchDatabase takes one path; several are run one after another by runPaths");
  const kind = paths[0]!;
  if (kind === "pglite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-bench-"));
    const env = { AGENTDRAFT_DATA_DIR: path.join(dir, "db") };
    return { label: kind, env, setupEnv: env, about: "embedded PGlite", drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `agentdraft_bench_${Date.now()}_${kind.replace(/-/g, "_")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"`);
  await client.end();
  const releaseBackends = keepBackendsOffServerCore(name);
  const direct = new URL(admin);
  direct.pathname = `/${name}`;
  // Migrations always run on the direct URL (said, so the server does not warn that they might not).
  const setupEnv = { DATABASE_URL: direct.toString(), DATABASE_URL_UNPOOLED: direct.toString(), DATABASE_POOL_MAX: process.env.BENCH_POOL_MAX ?? "50" };
  const closers: (() => unknown)[] = [];
  let env: Record<string, string> = setupEnv;
  let about = "local Postgres, direct (node-postgres, named prepared statements)";
  if (kind === "postgres-unprepared") {
    env = { ...setupEnv, DATABASE_PREPARED_STATEMENTS: "off" };
    about = "local Postgres, direct (node-postgres, prepared statements off: DATABASE_PREPARED_STATEMENTS=off)";
  } else if (kind === "pooled") {
    const bouncer = await startPgBouncer({ host: direct.hostname, port: Number(direct.port || 5432) });
    closers.push(bouncer.stop);
    const pooled = new URL(direct);
    pooled.host = `127.0.0.1:${bouncer.port}`;
    // PgBouncer before 1.21 does not carry protocol-level prepared statements in transaction mode.
    env = { ...setupEnv, DATABASE_URL: pooled.toString(), DATABASE_URL_UNPOOLED: direct.toString(), DATABASE_PREPARED_STATEMENTS: "off" };
    about = `${bouncer.version} in transaction mode (pool size 40) in front of the local Postgres, node-postgres, prepared statements off (PgBouncer before 1.21 cannot carry them); migrations on the direct URL`;
  } else if (kind === "neon") {
    const proxy = await startNeonWsProxy();
    closers.push(proxy.close);
    env = { ...setupEnv, DATABASE_DRIVER: "neon", DATABASE_URL_UNPOOLED: direct.toString(), NEON_WS_PROXY: `127.0.0.1:${proxy.port}/v1` };
    about = "Neon's serverless driver (@neondatabase/serverless Pool, one WebSocket per connection) through a local WebSocket-to-TCP proxy to the local Postgres, no TLS, no pooler";
  }
  return {
    label: kind,
    env,
    setupEnv,
    about,
    drop: async () => {
      releaseBackends();
      for (const close of closers) await close();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

/** Points this process at the benchmark database and migrates it. */
export async function connectBenchDatabase(env: Record<string, string>): Promise<void> {
  await closeDb();
  delete process.env.DATABASE_URL;
  Object.assign(process.env, env);
  resetEnvCache();
  await runMigrations();
}

/** Builds the app as `npm run build` does, unless BENCH_SKIP_BUILD=1 and a build exists; true when it built. */
export function buildApp(): boolean {
  if (process.env.BENCH_SKIP_BUILD === "1" && fs.existsSync(".next/BUILD_ID")) return false;
  console.error("building the app (npm run build: the parse worker's bundle, then next build)…");
  const worker = spawnSync(process.execPath, ["bin/build-parse-worker.mjs"], { stdio: "inherit" });
  if (worker.status !== 0) throw new Error("bin/build-parse-worker.mjs failed");
  const built = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (built.status !== 0) throw new Error("next build failed");
  return true;
}

/** Builds (unless BENCH_SKIP_BUILD=1) and starts `next start` on a loopback port; resolves when it answers. */
export async function startNextServer(env: Record<string, string>): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  buildApp();
  let port = 4100 + Math.floor(Math.random() * 800);
  if (port === 4190) port++; // on fetch's list of blocked ports (sieve)
  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server (written when it stops).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const command = serverCommand([process.execPath, ...nodeArgs, "node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"]);
  const child: ChildProcess = spawn(command.file, command.args, {
    env: { ...process.env, ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${url}/api/ping`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const releaseHelpers = keepHelpersOffServerCore(child.pid!);
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => {
          releaseHelpers();
          resolve();
        });
        // A profiled server writes its profile on SIGINT (not on SIGTERM).
        child.kill(nodeArgs.length ? "SIGINT" : "SIGTERM");
      }),
  };
}

/** The server runs with limits that would otherwise throttle a load test. */
export const SERVER_ENV = {
  API_RATE_LIMIT_BURST: "1000000000",
  API_RATE_LIMIT_PER_SECOND: "1000000000",
  API_WORKSPACE_RATE_LIMIT_BURST: "1000000000",
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: "1000000000",
  AGENTDRAFT_ENCRYPTION_KEYS: randomBytes(32).toString("base64"),
  AUTH_SECRET: randomBytes(32).toString("base64"),
  MAIL_CAPTURE_ONLY: "1",
  // Production needs its public URL (links in notices); the bench's servers answer on loopback.
  AUTH_URL: "http://localhost:3000",
};

export { writeResults } from "./results";

export const machine = () => ({
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model,
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  load_average_1_5_15: os.loadavg().map((l) => Math.round(l * 100) / 100),
  // --server-core: which cores the server had alone, and which the rest shared (null: the kernel placed every process).
  core_split: coreSplitInForce(),
});

/** The bare route (`GET /api/ping`) under load, on a client of its own: the framework's own limit, the benches' denominator. */
export async function runBareRoute(url: string, load: LoadOptions): Promise<Summary> {
  const client = httpClient(load.concurrency);
  try {
    return await runLoad(load, async () => String((await client.request(`${url}/api/ping`)).status));
  } finally {
    client.close();
  }
}

/**
 * Uncounted load on a fresh server, so the rows measure a warm one: hold traffic on 20 calendars
 * of its own, then `more` (other traffic to warm), then the bare route, each `load.seconds` long.
 */
export async function warmUpServer(url: string, key: string, load: LoadOptions, more?: () => Promise<unknown>): Promise<void> {
  await runHoldsScenario({ url, key, calendarIds: await createCalendars(url, key, 20, "warmup"), slots: 16, commitShare: 0.5 }, load);
  await more?.();
  await runBareRoute(url, load);
}
