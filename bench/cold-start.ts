// npm run bench:cold-start [-- --runs 10] [--db postgres] [--routes ping,me] [--bundles-only]
// What a serverless function pays on a cold start, per route, measured on the built app:
//
// (a) the route's traced bundle: .next/server/app/<route>/route.js plus every file its
//     route.js.nft.json lists (what `output: "standalone"` copies and a host packages for the
//     function), summed on disk, with the five largest packages in it;
// (b) a fresh Node process per run, working directory .next/standalone, that requires the
//     route's compiled entry and answers one real HTTP request through the entry's `handler`
//     (bench/cold-start-function.mjs says exactly what it does): the time from spawning the
//     process to the first answer, with Node's boot, the entry's require, the first request
//     (instrumentation.ts, the route's module graph, the database's open, the handler) and a
//     second, warm request beside it. At least 10 fresh processes per route (`--runs`), the
//     routes interleaved run by run so a drift in the machine's speed spreads over all of them,
//     after one uncounted run each (the disk cache).
//
// The database is embedded PGlite in a temporary directory (or a fresh database of the local
// Postgres with --db postgres), migrated and seeded once before the runs: each process opens it,
// none migrates it. Background work runs on Inngest (production's mode on a serverless host),
// whose event API points at a closed loopback port.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { benchDatabase, buildApp, connectBenchDatabase, machine, SERVER_ENV, writeResults } from "./setup";
import { closeDb } from "../db/client";
import { percentile, table } from "../cli/loadtest/stats";
import { newWorkspaceWithKey } from "./fixtures";
import { operatorActor } from "../lib/platform/actor";
import { createCalendar } from "../lib/domains/calendars/calendars";
import { createAgent } from "../lib/domains/agents/create-agent";
import { createInbox } from "../lib/domains/mail/inboxes";

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const arg = (name: string) => (flag(name) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const RUNS = Number(arg("runs") ?? 10);
const STANDALONE = path.resolve(".next/standalone");

const ENV = {
  ...SERVER_ENV,
  JOB_RUNNER: "inngest",
  INNGEST_SIGNING_KEY: "signkey-test-0123456789abcdef",
  INNGEST_EVENT_KEY: "bench-event-key",
  INNGEST_BASE_URL: "http://127.0.0.1:9",
  INBOUND_SECRET: "bench-inbound-secret-0123456789",
  AGENTDRAFT_MAIL_DOMAIN: "bench.example",
};

type Req = { method: string; path: string; headers: Record<string, string>; body?: string };
type Route = { name: string; dir: string; expect: number; requests: (run: number) => Req[] };
type Seed = { key: string; calendarId: string; inbox: string };

const DAY = Date.parse("2031-01-06T00:00:00Z");
const holdBody = (slot: number) => JSON.stringify({ start_time: new Date(DAY + slot * 3_600_000).toISOString(), end_time: new Date(DAY + (slot + 1) * 3_600_000).toISOString(), hold_ttl_seconds: 600 });
const mail = (run: number, k: number) =>
  [`From: Sender <sender@elsewhere.example>`, `To: x@bench.example`, `Subject: cold start ${run}.${k}`, `Message-ID: <cold-${Date.now()}-${run}-${k}@elsewhere.example>`, `Date: ${new Date().toUTCString()}`, `Content-Type: text/plain; charset=utf-8`, ``, `Hello from run ${run}.`, ``].join("\r\n");

function routes(seed: Seed): Route[] {
  const auth = { authorization: `Bearer ${seed.key}` };
  const twice = (r: (k: number) => Req) => [r(0), r(1)];
  return [
    { name: "GET /api/ping", dir: "api/ping", expect: 200, requests: () => twice(() => ({ method: "GET", path: "/api/ping", headers: {} })) },
    { name: "GET /api/v1/me", dir: "api/v1/me", expect: 200, requests: () => twice(() => ({ method: "GET", path: "/api/v1/me", headers: auth })) },
    {
      name: "POST /api/v1/calendars/{id}/holds",
      dir: "api/v1/calendars/[id]/holds",
      expect: 201,
      requests: (run) => twice((k) => ({ method: "POST", path: `/api/v1/calendars/${seed.calendarId}/holds`, headers: { ...auth, "content-type": "application/json" }, body: holdBody(run * 2 + k) })),
    },
    // Unsigned, Inngest's SDK answers 401: after the route's whole graph is loaded and serve()
    // has built the function list from every job kind (the route does that on its first request).
    { name: "GET /api/inngest (unsigned)", dir: "api/inngest", expect: 401, requests: () => twice(() => ({ method: "GET", path: "/api/inngest", headers: {} })) },
    {
      name: "POST /api/inbound/raw",
      dir: "api/inbound/raw",
      expect: 200,
      requests: (run) => twice((k) => ({ method: "POST", path: `/api/inbound/raw?to=${encodeURIComponent(seed.inbox)}`, headers: { authorization: `Bearer ${ENV.INBOUND_SECRET}`, "content-type": "message/rfc822" }, body: mail(run, k) })),
    },
    {
      name: "POST /api/mcp (tools/list)",
      dir: "api/mcp",
      expect: 200,
      requests: () => twice((k) => ({ method: "POST", path: "/api/mcp", headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }, body: JSON.stringify({ jsonrpc: "2.0", id: k + 1, method: "tools/list", params: {} }) })),
    },
  ];
}

/** The route's function bundle: its entry plus every file its .nft.json traces, bytes on disk, by package. */
function bundle(dir: string) {
  const own = path.resolve(".next/server/app", dir, "route.js");
  const trace = JSON.parse(fs.readFileSync(`${own}.nft.json`, "utf8")) as { files: string[] };
  const files = new Set([own, ...trace.files.map((f) => path.resolve(path.dirname(own), f))]);
  const byPackage = new Map<string, number>();
  let bytes = 0;
  for (const f of files) {
    let size = 0;
    try {
      const s = fs.statSync(f);
      if (!s.isFile()) continue;
      size = s.size;
    } catch {
      continue; // listed but absent (an optional dependency)
    }
    bytes += size;
    const rel = path.relative(process.cwd(), f);
    const nm = rel.lastIndexOf("node_modules/");
    let pkg = "(app code outside .next)";
    if (nm >= 0) {
      const parts = rel.slice(nm + "node_modules/".length).split("/");
      pkg = parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
    } else if (rel.startsWith(".next/")) pkg = "(.next: compiled app code and chunks)";
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + size);
  }
  const top = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name, b]) => ({ name, bytes: b }));
  const packages = [...byPackage.keys()];
  return { bytes, files: files.size, top_packages: top, has: Object.fromEntries(["mailauth", "joi", "tldts", "smtp-server"].map((p) => [p, packages.includes(p)])) };
}

type Run = { exited_ms: number; total_ms: number; boot_ms: number; require_entry_ms: number; first_request_ms: number; second_request_ms: number | null; process_ms: number; answers: { status: number; body: string; ms: number }[] };

/** One fresh process: spawn → the first answer (and a second), timed from the parent's side too. */
function coldRun(route: Route, run: number, env: Record<string, string>): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.resolve("bench/cold-start-function.mjs"), route.dir, JSON.stringify(route.requests(run))], {
    cwd: STANDALONE,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let answered = 0; // when its first answer was reported (a warm request and the exit follow)
  child.stdout.on("data", (c: Buffer) => {
    out += c;
    if (!answered && out.includes("\n")) answered = performance.now();
  });
  child.stderr.on("data", (c: Buffer) => (err += c));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (code !== 0 || !line) return reject(new Error(`${route.name}: the function exited ${code}\n${err.slice(-2000)}`));
      const r = JSON.parse(line) as Omit<Run, "process_ms" | "exited_ms">;
      for (const a of r.answers) if (a.status !== route.expect) return reject(new Error(`${route.name}: answered ${a.status}, expected ${route.expect}: ${a.body}\n${err.slice(-2000)}`));
      resolve({ ...r, process_ms: (answered || performance.now()) - started, exited_ms: performance.now() - started });
    });
  });
}

const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
const ms = (v: number) => `${Math.round(v)}`;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: percentile(s, 50), p90: percentile(s, 90), min: s[0]!, max: s.at(-1)! };
};

function commitMeasured(): string {
  const head = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" }).trim();
  return dirty ? `${head} (with uncommitted changes)` : head;
}

async function main() {
  // The commit measured is the build's: recorded when this bench builds, else unknown.
  const builtFrom = ".next/bench-built-from";
  const head = commitMeasured();
  if (buildApp()) fs.writeFileSync(builtFrom, head);
  if (!fs.existsSync(path.join(STANDALONE, ".next/server/app"))) throw new Error(".next/standalone is missing: next.config.ts must keep output: \"standalone\"");
  const commit = fs.existsSync(builtFrom) ? fs.readFileSync(builtFrom, "utf8") : "unknown (built outside this bench)";
  const only = arg("routes")?.split(",");

  const db = await benchDatabase(argv);
  // Seeding schedules nothing on Inngest: its keys go to the functions only.
  Object.assign(process.env, SERVER_ENV, { INBOUND_SECRET: ENV.INBOUND_SECRET, AGENTDRAFT_MAIL_DOMAIN: ENV.AGENTDRAFT_MAIL_DOMAIN });
  await connectBenchDatabase(db.env); // migrates, once
  const { workspace, key } = await newWorkspaceWithKey("cold start");
  const actor = operatorActor(workspace.id);
  const calendar = await createCalendar(actor, { name: "cold start" });
  const agent = await createAgent(actor, { name: "cold-start" });
  const inbox = await createInbox(actor, { agent_id: agent.id, username: "cold-start", allow_senders: [], block_senders: [] });
  await closeDb(); // PGlite: one process at a time
  const all = routes({ key, calendarId: calendar.id, inbox: inbox.address }).filter((r) => !only || only.some((o) => r.dir.includes(o)));

  const bundles = Object.fromEntries(all.map((r) => [r.name, bundle(r.dir)]));
  const runs: Record<string, Run[]> = Object.fromEntries(all.map((r) => [r.name, []]));
  const env = { ...ENV, ...db.env };
  try {
    if (!flag("bundles-only")) {
      for (const r of all) await coldRun(r, 1000, env); // uncounted: the disk cache
      for (let i = 0; i < RUNS; i++) {
        for (const r of all) runs[r.name]!.push(await coldRun(r, i, env));
        process.stderr.write(`run ${i + 1}/${RUNS}\r`);
      }
    }
  } finally {
    await db.drop();
  }

  const rows = all.map((r) => {
    const b = bundles[r.name]!;
    const row: Record<string, string> = { route: r.name, bundle: mb(b.bytes), files: String(b.files) };
    if (runs[r.name]!.length) {
      const total = stats(runs[r.name]!.map((x) => x.process_ms));
      const first = stats(runs[r.name]!.map((x) => x.first_request_ms));
      Object.assign(row, {
        "spawn→first answer ms: median": ms(total.median),
        p90: ms(total.p90),
        "min–max": `${ms(total.min)}–${ms(total.max)}`,
        "of which node boot": ms(stats(runs[r.name]!.map((x) => x.boot_ms)).median),
        "entry require": ms(stats(runs[r.name]!.map((x) => x.require_entry_ms)).median),
        "first request": ms(first.median),
        "warm request": ms(stats(runs[r.name]!.map((x) => x.second_request_ms ?? 0)).median),
      });
    }
    return row;
  });
  const summary = Object.fromEntries(
    all.map((r) => {
      const rs = runs[r.name]!;
      const pick = (f: (x: Run) => number) => (rs.length ? stats(rs.map(f)) : null);
      return [r.name, { bundle: bundles[r.name], spawn_to_first_answer_ms: pick((x) => x.process_ms), spawn_to_exit_ms: pick((x) => x.exited_ms), node_boot_ms: pick((x) => x.boot_ms), require_entry_ms: pick((x) => x.require_entry_ms), first_request_ms: pick((x) => x.first_request_ms), warm_request_ms: pick((x) => x.second_request_ms ?? 0), runs: rs }];
    }),
  );

  const m = machine();
  console.log(`\ncold start per route: a fresh Node process requires the built route and answers one request (${RUNS} processes each, ${db.label}, Inngest mode), ${m.cpus} cores, load average ${m.load_average_1_5_15.join(" ")}\ncommit ${commit}\n`);
  console.log(table(rows));
  console.log(`\nlargest packages in each traced bundle\n`);
  console.log(table(all.map((r) => ({ route: r.name, ...Object.fromEntries(bundles[r.name]!.top_packages.map((p, i) => [`#${i + 1}`, `${p.name} ${mb(p.bytes)}`])) }))));
  const reproduce = `npm run bench:cold-start -- ${argv.join(" ")}`.trim();
  console.log(`\nreproduce: ${reproduce}   (BENCH_SKIP_BUILD=1 reuses the build)`);
  console.log(writeResults("cold-start", { commit, machine: m, database: db.label, runs_per_route: RUNS, command: reproduce, routes: summary }));
}

await main();
