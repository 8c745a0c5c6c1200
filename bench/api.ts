// npm run bench:api [-- --db postgres[,pooled,neon,postgres-unprepared]] — the API platform's overhead against the
// framework's own limit, on one database path or several (one run each, then the paths' ratios).
import { randomUUID } from "node:crypto";
import { benchDatabase, machine, SERVER_ENV, startNextServer, connectBenchDatabase, writeResults } from "./setup";
import { closeDb } from "../db/client";
import { newWorkspaceWithKey } from "./fixtures";
import { runLoad } from "../cli/loadtest/run-load";
import { httpClient } from "../cli/loadtest/http-client";
import { table, type Summary } from "../cli/loadtest/stats";
import { parseDbPaths } from "./paths";
import { runPaths } from "./run-paths";
import { compareApiPaths, type ApiResults } from "./api-paths";

const PATHS = parseDbPaths(process.argv);
if (PATHS.length > 1) {
  compareApiPaths(await runPaths<ApiResults>(PATHS, process.argv.slice(2)), process.argv.slice(2));
  process.exit(0);
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
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
  for (const target of targets) {
    for (const clients of CONCURRENCY) {
      const c = httpClient(clients);
      await runLoad({ concurrency: clients, seconds: 1 }, () => target.run(c)); // warm-up
      const summary = await runLoad({ concurrency: clients, seconds: SECONDS }, () => target.run(c));
      c.close();
      results.push({ target: target.name, clients, summary });
      console.error(`${target.name} × ${clients}: ${summary.per_second} req/s`);
    }
  }
} finally {
  await server.stop();
  await db.drop();
}

const bare = (clients: number) => results.find((r) => r.target === targets[0]!.name && r.clients === clients)!.summary.per_second;
console.log(`\nAPI platform overhead — ${db.label} (${db.about}), ${SECONDS} s per cell, load generator on the same machine\n`);
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
const file = writeResults(`api-${db.label}`, { benchmark: "api", database: db.label, database_about: db.about, seconds: SECONDS, machine: machine(), results });
console.log(`\nresults: ${file}\nreproduce: npm run bench:api${db.label === "pglite" ? "" : ` -- --db ${db.label}`}`);
