// npm run bench:cpu [-- --seconds N] [-- --server-core] — CPU time per request of each process on the hold path
// (the Next.js server, the Postgres backends of the benchmark's database, the load generator),
// beside the bare route, on a server warmed up first (BENCH_WARMUP_SECONDS, 10). CPU time per
// request, unlike requests per second, barely moves when other work shares the machine, so it
// shows where the hold path's cost goes. Beside it, the share of each row the server's JS thread
// ran and the share it was ready but waited for a core (/proc/PID/schedstat). --server-core gives
// the server a core of its own (bench/cores.ts). On Postgres 15+ with pg_walinspect (contrib), the
// hold row's WAL is also broken down by the table or index each record touches: what to cut first.
import fs from "node:fs";
import { benchDatabase, connectBenchDatabase, startNextServer, SERVER_ENV, machine, writeResults, runBareRoute, warmUpServer } from "./setup";
import { closeDb } from "../db/client";
import { newWorkspaceWithKey } from "./fixtures";
import { createCalendars, runHoldsScenario } from "../cli/loadtest/holds-scenario";
import { runLoad } from "../cli/loadtest/run-load";
import { httpClient } from "../cli/loadtest/http-client";
import { table } from "../cli/loadtest/stats";
import { backendsOf, coreSplitArgs } from "./cores";
import { reproduceCommand } from "./paths";
import pg from "pg";

const SECONDS = process.argv.includes("--seconds") ? Number(process.argv[process.argv.indexOf("--seconds") + 1]) : 8;
const AGENTS = 50;
const TICK_MS = 1000 / 100; // USER_HZ on Linux

/** User + system CPU ms of one process (all its threads). */
function cpuOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // ended: its time is gone with it (backends here live as long as the pool)
  }
}

const db = await benchDatabase(process.argv);
const database = new URL(db.env.DATABASE_URL ?? "postgres://x/none").pathname.slice(1);
await connectBenchDatabase(db.env);
const ws = await newWorkspaceWithKey("bench-cpu");
await closeDb();
const server = await startNextServer({ ...db.env, ...SERVER_ENV });
const serverPid = server.pid;
const calendarIds = await createCalendars(server.url, ws.key, 200, "cpu");

/** Nanoseconds the process's main thread ran and waited runnable for a core (/proc/PID/schedstat), or null where the kernel does not say (the row shows n/a). */
function schedOf(pid: number): [number, number] | null {
  try {
    const [run, wait] = fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ").map(Number);
    return [run!, wait!];
  } catch {
    return null;
  }
}

/** The write-ahead log written so far, cluster-wide (pg_stat_wal; this benchmark is the machine's only writer), or null on PGlite. */
const admin = db.label === "pglite" ? null : new pg.Client({ connectionString: db.setupEnv.DATABASE_URL });
await admin?.connect();
async function walOf(): Promise<{ records: number; fpi: number; bytes: number } | null> {
  if (!admin) return null;
  const { rows } = await admin.query<{ records: string; fpi: string; bytes: string }>("select wal_records as records, wal_fpi as fpi, wal_bytes as bytes from pg_stat_wal");
  return { records: Number(rows[0]!.records), fpi: Number(rows[0]!.fpi), bytes: Number(rows[0]!.bytes) };
}

/** The WAL position now (pg_current_wal_lsn), or null on PGlite. */
async function lsnOf(): Promise<string | null> {
  return admin ? (await admin.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")).rows[0]!.lsn : null;
}

/**
 * The WAL records written between two positions, by the table or index each first touches
 * (pg_walinspect, in this benchmark's database): what each request makes Postgres write, per
 * relation. Null where pg_walinspect is not installed (Postgres < 15, or no contrib package).
 */
async function walByRelation(from: string, to: string, requests: number) {
  if (!admin) return null;
  try {
    await admin.query("create extension if not exists pg_walinspect");
  } catch {
    return null;
  }
  const { rows } = await admin.query<{ relation: string; records: string; bytes: string }>(
    `select coalesce(pg_filenode_relation(0, m[2]::oid)::text, case when m is null then '(' || resource_manager || ')' else '(another database)' end) as relation,
            count(*) as records, sum(record_length + fpi_length) as bytes
       from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn),
            lateral (select case when r.m[1]::oid = (select oid from pg_database where datname = current_database()) then r.m end as m
                       from (select regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)') as m) r) x
      group by 1 order by 2 desc`,
    [from, to],
  );
  return rows.map((r) => ({ relation: r.relation, "records/req": Math.round((Number(r.records) / requests) * 100) / 100, "bytes/req": Math.round(Number(r.bytes) / requests) }));
}

async function measure(name: string, perAttempt: number, work: () => Promise<{ count: number }>) {
  const pids = () => [serverPid, ...backendsOf(database)];
  const before = new Map(pids().map((p) => [p, cpuOf(p)]));
  const wal0 = await walOf();
  const self0 = process.cpuUsage();
  const sched0 = schedOf(serverPid);
  const t0 = process.hrtime.bigint();
  const { count } = await work();
  const wallNs = Number(process.hrtime.bigint() - t0);
  const sched1 = schedOf(serverPid);
  const self = process.cpuUsage(self0);
  const wal1 = await walOf();
  let serverMs = 0;
  let pgMs = 0;
  for (const p of pids()) {
    const d = cpuOf(p) - (before.get(p) ?? 0);
    if (p === serverPid) serverMs += d;
    else pgMs += d;
  }
  const requests = count * perAttempt;
  const per = (ms: number) => Math.round((ms / requests) * 1000) / 1000;
  // The server's one JS thread: the share of the row it ran, and the share it was ready to run but waited for a core.
  const share = (i: 0 | 1) => (sched0 && sched1 ? Math.round(((sched1[i] - sched0[i]) / wallNs) * 1000) / 10 : "n/a");
  return {
    name,
    requests,
    "server ms/req": per(serverMs),
    "postgres ms/req": per(pgMs),
    "load generator ms/req": per((self.user + self.system) / 1000),
    "server thread ran %": share(0),
    "waited for a core %": share(1),
    // What each request makes Postgres write: WAL records (a row or an index entry each, mostly), full-page images, bytes.
    "WAL records/req": wal0 && wal1 ? Math.round(((wal1.records - wal0.records) / requests) * 10) / 10 : "n/a",
    "WAL bytes/req": wal0 && wal1 ? Math.round((wal1.bytes - wal0.bytes) / requests) : "n/a",
    "full pages/req": wal0 && wal1 ? Math.round(((wal1.fpi - wal0.fpi) / requests) * 100) / 100 : "n/a",
  };
}

/** Uncounted load first, as bench:holds does: a server still compiling its request path costs more per request than a warm one. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);

const rows = [];
try {
  const client = httpClient(AGENTS);
  if (WARMUP_SECONDS > 0) {
    console.error(`warming the server up (${WARMUP_SECONDS} s of hold traffic, then of the bare route)…`);
    await warmUpServer(server.url, ws.key, { concurrency: AGENTS, seconds: WARMUP_SECONDS });
  }
  rows.push(
    await measure("bare route GET /api/ping", 1, async () => {
      const s = await runBareRoute(server.url, { concurrency: AGENTS, seconds: SECONDS });
      return { count: s.requests };
    }),
  );
  rows.push(
    await measure("GET /api/v1/me", 1, async () => {
      const s = await runLoad({ concurrency: AGENTS, seconds: SECONDS }, async () =>
        String((await client.request(`${server.url}/api/v1/me`, { method: "GET", headers: { authorization: `Bearer ${ws.key}` } })).status),
      );
      return { count: s.requests };
    }),
  );
  client.close();
  let placements = 0;
  const lsn0 = await lsnOf();
  const hold = await measure("hold attempt (place, then commit or release), 200 calendars", 1, async () => {
    const s = await runHoldsScenario({ url: server.url, key: ws.key, calendarIds, slots: 48, commitShare: 0.5 }, { concurrency: AGENTS, seconds: SECONDS });
    placements = s.requests;
    return { count: s.requests + (s.outcomes.granted ?? 0) };
  });
  const lsn1 = await lsnOf();
  rows.push(hold);
  const walDetail = lsn0 && lsn1 ? await walByRelation(lsn0, lsn1, hold.requests) : null;
  console.log(`\nCPU time per request — ${db.label}, ${SECONDS} s per row, ${AGENTS} clients (${placements} placements)\n`);
  console.log(table(rows));
  if (walDetail) console.log(`\nWAL written during the hold row, by the table or index each record first touches (pg_walinspect), per request\n\n${table(walDetail)}`);
  const file = writeResults(`cpu-${db.label}`, { benchmark: "cpu", database: db.label, seconds: SECONDS, machine: machine(), rows, walByRelation: walDetail });
  console.log(`\nresults: ${file}\nreproduce: ${reproduceCommand("bench:cpu", [...(db.label === "pglite" ? [] : ["--db", db.label]), ...coreSplitArgs()])}`);
} finally {
  await admin?.end();
  await server.stop();
  await db.drop();
}
