// npm run bench:cold-start [-- --runs 7] [--port 4321]
// A serverless function's cold start, measured on `next start`: the time from spawning the
// server to its first successful /api/ping (the boot plus instrumentation.ts), and to the first
// answer of /api/inngest after that (the route Inngest's step calls land on), each the median of
// several fresh processes, with background work on Inngest (production) and on the embedded
// engine. Then the largest server function bundles, from the build's traces
// (.next/server/**/*.nft.json: the files Vercel would package with each route).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { benchDatabase, connectBenchDatabase, machine, SERVER_ENV, startNextServer, writeResults } from "./setup";
import { closeDb } from "../db/client";
import { percentile, table } from "../cli/loadtest/stats";

const arg = (name: string, fallback: number) => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : fallback);
const RUNS = arg("runs", 7);
const PORT = arg("port", 4100 + Math.floor(Math.random() * 800));

const MODES: Record<string, Record<string, string>> = {
  inngest: { JOB_RUNNER: "inngest", INNGEST_SIGNING_KEY: "signkey-test-0123456789abcdef", INNGEST_EVENT_KEY: "bench-event-key", INNGEST_BASE_URL: "http://127.0.0.1:9" },
  embedded: { JOB_RUNNER: "embedded" },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `url` every 10 ms until it answers (any status when `anyStatus`, else 2xx); returns when. */
async function firstAnswer(url: string, anyStatus: boolean, exited: () => boolean): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
      await res.arrayBuffer();
      if (res.ok || anyStatus) return performance.now();
    } catch {
      /* not listening yet */
    }
    if (exited()) throw new Error("next start exited before it answered");
    await sleep(10);
  }
}

/** One fresh `next start`: milliseconds to the first /api/ping, then to the first /api/inngest answer. */
async function coldStart(env: Record<string, string>): Promise<{ ping: number; inngest: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(PORT), "-H", "127.0.0.1"], {
    env: { ...process.env, ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "ignore"], // quiet: unsigned /api/inngest calls log a signature error each
  });
  const exited = () => child.exitCode !== null;
  try {
    const ping = (await firstAnswer(`http://127.0.0.1:${PORT}/api/ping`, false, exited)) - started;
    const before = performance.now();
    const inngest = (await firstAnswer(`http://127.0.0.1:${PORT}/api/inngest`, true, exited)) - before;
    return { ping, inngest };
  } finally {
    await new Promise<void>((resolve) => {
      if (exited()) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
}

/** Each route's traced bundle: the route's own file plus every file its .nft.json lists, in bytes. */
function functionBundles(): { route: string; bytes: number; files: number }[] {
  const out: { route: string; bytes: number; files: number }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".js.nft.json") && full.includes(`${path.sep}app${path.sep}`)) {
        const trace = JSON.parse(fs.readFileSync(full, "utf8")) as { files: string[] };
        const own = full.replace(/\.nft\.json$/, "");
        const files = new Set([own, ...trace.files.map((f) => path.resolve(path.dirname(full), f))]);
        let bytes = 0;
        for (const f of files) {
          try {
            const s = fs.statSync(f);
            if (s.isFile()) bytes += s.size;
          } catch {
            /* listed but absent (optional dependency) */
          }
        }
        out.push({ route: path.relative(".next/server/app", own).replace(/\.js$/, ""), bytes, files: files.size });
      }
    }
  };
  walk(".next/server/app");
  return out.sort((a, b) => b.bytes - a.bytes);
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const ms = (v: number) => `${Math.round(v)} ms`;

async function main() {
  const db = await benchDatabase(["--db", "postgres"]);
  await connectBenchDatabase(db.env);
  await closeDb();
  // Builds unless BENCH_SKIP_BUILD=1 (and a build exists); the first start warms the disk cache.
  await (await startNextServer({ ...SERVER_ENV, ...db.env, ...MODES.inngest })).stop();

  const rows: Record<string, string>[] = [];
  const results: Record<string, unknown> = {};
  for (const [mode, modeEnv] of Object.entries(MODES)) {
    const runs: { ping: number; inngest: number }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await coldStart({ ...SERVER_ENV, ...db.env, ...modeEnv }));
    const ping = runs.map((r) => r.ping).sort((a, b) => a - b);
    const inngest = runs.map((r) => r.inngest).sort((a, b) => a - b);
    results[mode] = { runs, ping_median_ms: percentile(ping, 50), inngest_median_ms: percentile(inngest, 50) };
    rows.push({
      "background work": mode,
      "to first /api/ping (median)": ms(percentile(ping, 50)),
      range: `${ms(ping[0]!)}–${ms(ping.at(-1)!)}`,
      "then first /api/inngest (median)": ms(percentile(inngest, 50)),
      "range ": `${ms(inngest[0]!)}–${ms(inngest.at(-1)!)}`,
    });
  }
  await db.drop();

  const bundles = functionBundles();
  results.bundles = bundles;
  console.log(`\ncold start of next start (${RUNS} runs each, Postgres on loopback), ${machine().cpus} cores\n`);
  console.log(table(rows));
  console.log(`\nlargest server function bundles (from .next/server/app/**/*.nft.json)\n`);
  const pick = [...bundles.slice(0, 5), ...bundles.filter((b) => /^api\/(ping|inngest)\/route$/.test(b.route))];
  console.log(table([...new Map(pick.map((b) => [b.route, b])).values()].map((b) => ({ route: b.route, bundle: mb(b.bytes), files: String(b.files) }))));
  console.log(`\n${writeResults("cold-start", { machine: machine(), runs: RUNS, ...results })}`);
}

await main();
