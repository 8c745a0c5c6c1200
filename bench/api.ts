// npm run bench:api [-- --db postgres[,pooled,neon,postgres-unprepared]] [-- --server-core] — the API platform's overhead against the
// framework's own limit, on one database path or several (one run each, then the paths' ratios).
import { randomUUID } from "node:crypto";
import { benchDatabase, machine, SERVER_ENV, startNextServer, connectBenchDatabase, writeResults } from "./setup";
import { closeDb } from "../db/client";
import { newWorkspaceWithKey } from "./fixtures";
import { mergeRuns, runLoad, runLoadRaw, type RawRun } from "../cli/loadtest/run-load";
import { httpClient } from "../cli/loadtest/http-client";
import { table, type Summary } from "../cli/loadtest/stats";
import { parseDbPaths, reproduceCommand } from "./paths";
import { coreSplitArgs } from "./cores";
import { runPaths } from "./run-paths";
import { compareApiPaths, type ApiResults } from "./api-paths";

const PATHS = parseDbPaths(process.argv);
if (PATHS.length > 1) {
  compareApiPaths(await runPaths<ApiResults>(PATHS, process.argv.slice(2)), process.argv.slice(2));
  process.exit(0);
}

/**
 * Each cell is SLICES slices of SLICE_SECONDS, the targets taking turns (bare, /me, POST, bare,
 * /me, POST…), so that every target is measured across the same minutes: this machine's speed
 * drifts within a minute (the bare route alone ran 443 and 799 req/s a row apart), and a ratio of
 * two targets measured a minute apart measured the machine. The first SETTLE_SECONDS of each
 * slice are not counted (clients starting at once queue in step).
 */
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const SETTLE_SECONDS = 0.25;
const SECONDS = SLICES * (SLICE_SECONDS - SETTLE_SECONDS);
const CONCURRENCY = [1, 10, 50];

const db = await benchDatabase(process.argv);
await connectBenchDatabase(db.setupEnv);
const { key } = await newWorkspaceWithKey("bench-api");
await closeDb(); // the server owns the database from here (PGlite allows one process)
const server = await startNextServer({ ...db.env, ...SERVER_ENV });

const targets: { name: string; run: (c: ReturnType<typeof httpClient>) => Promise<string> }[] = [
  { name: "bare route (GET /api/ping)", run: async (c) => String((await c.request(`${server.url}/api/ping`)).status) },
  {
    name: "authenticated GET /api/v1/me",
    run: async (c) => String((await c.request(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status),
  },
  {
    name: "idempotent POST /api/v1/calendars",
    run: async (c) =>
      String(
        (
          await c.request(`${server.url}/api/v1/calendars`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": randomUUID() },
            body: JSON.stringify({ name: "bench" }),
          })
        ).status,
      ),
  },
];

const results: { target: string; clients: number; summary: Summary }[] = [];
try {
  for (const clients of CONCURRENCY) {
    const c = httpClient(clients);
    for (const target of targets) await runLoad({ concurrency: clients, seconds: 1 }, () => target.run(c)); // warm-up
    const runs = targets.map((): RawRun[] => []);
    for (let slice = 0; slice < SLICES; slice++) {
      for (const [i, target] of targets.entries()) {
        runs[i]!.push(await runLoadRaw({ concurrency: clients, seconds: SLICE_SECONDS, settleSeconds: SETTLE_SECONDS }, () => target.run(c)));
      }
    }
    c.close();
    for (const [i, target] of targets.entries()) {
      const summary = mergeRuns(runs[i]!);
      results.push({ target: target.name, clients, summary });
      console.error(`${target.name} × ${clients}: ${summary.per_second} req/s`);
    }
  }
} finally {
  await server.stop();
  await db.drop();
}

const bare = (clients: number) => results.find((r) => r.target === targets[0]!.name && r.clients === clients)!.summary.per_second;
console.log(
  `\nAPI platform overhead — ${db.label} (${db.about}), ${SECONDS} s per cell counted (${SLICES} slices of ${SLICE_SECONDS} s, the targets taking turns), load generator on the same machine\n`,
);
console.log(
  table(
    results.map((r) => ({
      target: r.target,
      clients: r.clients,
      "req/s": r.summary.per_second,
      "p50 ms": r.summary.p50_ms,
      "p99 ms": r.summary.p99_ms,
      "vs bare": `${Math.round((r.summary.per_second / bare(r.clients)) * 100)}%`,
      statuses: Object.entries(r.summary.outcomes).map(([k, v]) => `${k}:${v}`).join(" "),
    })),
  ),
);
const file = writeResults(`api-${db.label}`, { benchmark: "api", database: db.label, database_about: db.about, seconds: SECONDS, slices: SLICES, slice_seconds: SLICE_SECONDS, machine: machine(), results });
console.log(`\nresults: ${file}\nreproduce: ${reproduceCommand("bench:api", [...(db.label === "pglite" ? [] : ["--db", db.label]), ...coreSplitArgs()])}`);
