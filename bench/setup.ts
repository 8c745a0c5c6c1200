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

/**
 * Picks the benchmark's database: `--db postgres` makes a fresh database on the local server
 * (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres) and drops it after;
 * the default is a fresh embedded PGlite directory.
 */
export async function benchDatabase(argv: string[]): Promise<{ label: string; env: Record<string, string>; drop: () => Promise<void> }> {
  const kind = argv.includes("--db") ? argv[argv.indexOf("--db") + 1] : "pglite";
  if (kind === "postgres") {
    const admin = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
    const name = `agentdraft_bench_${Date.now()}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`create database "${name}"`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return {
      label: "postgres",
      env: { DATABASE_URL: url.toString(), DATABASE_POOL_MAX: "50" },
      drop: async () => {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`drop database if exists "${name}" with (force)`);
        await c.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-bench-"));
  return { label: "pglite", env: { AGENTDRAFT_DATA_DIR: path.join(dir, "db") }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
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
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, "node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
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
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
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

export function writeResults(name: string, results: unknown): string {
  fs.mkdirSync("bench/results", { recursive: true });
  const file = `bench/results/${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + "\n");
  return file;
}

export const machine = () => ({ cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}`, load_average_1_5_15: os.loadavg().map((l) => Math.round(l * 100) / 100) });

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
