// npm run bench:holds [-- --db postgres[,pooled,neon,postgres-unprepared] [--rtt-ms 1]] [-- --slow-inngest] [-- --no-fresh] [-- --server-core]
// — the conflict engine under N concurrent agents, over HTTP (next start) with the database as it
// is and a region-hop away (a proxy delaying each direction by --rtt-ms), beside a bare route, the
// database layer alone and a naive baseline; on several database paths in one command (one run
// each, then the paths' ratios); on Postgres direct, also a freshly migrated database before and
// after ANALYZE.
// --slow-inngest: background work on Inngest, whose event API takes 2 s per send (BENCH_INNGEST_MS) (the HTTP rows must not move).
// --server-core: the server on core 0 alone, everything else on the other cores (bench/cores.ts).
import { sql } from "drizzle-orm";
import { benchDatabase, machine, SERVER_ENV, startNextServer, connectBenchDatabase, writeResults, runBareRoute, warmUpServer } from "./setup";
import { newWorkspaceWithKey } from "./fixtures";
import { closeDb, getDb } from "../db/client";
import { runLoad } from "../cli/loadtest/run-load";
import { createCalendars, grantsIn, runHoldsScenario } from "../cli/loadtest/holds-scenario";
import { table, type Summary } from "../cli/loadtest/stats";
import { createCalendar } from "../lib/domains/calendars/calendars";
import { placeHold } from "../lib/domains/holds/place-hold";
import { commitHold } from "../lib/domains/holds/commit-hold";
import { releaseHold } from "../lib/domains/holds/release-hold";
import { naivePlaceHold } from "./naive-place-hold";
import { AppError } from "../lib/platform/errors";
import type { Actor } from "../lib/platform/actor";
import { startDelayProxy } from "./delay-proxy";
import { coreSplitArgs } from "./cores";
import { runLeasesScenario, type LeaseBench } from "./leases-scenario";
import { startSlowEventApi } from "./slow-event-api";
import { atLeast, metLabel, parseDbPaths, reproduceCommand, type Ratio } from "./paths";
import { runPaths } from "./run-paths";
import { compareHoldPaths, type HoldsResults } from "./holds-paths";
import pg from "pg";

const PATHS = parseDbPaths(process.argv);
if (PATHS.length > 1) {
  // Several database paths: one run of this bench each, then their ratios.
  compareHoldPaths(await runPaths<HoldsResults>(PATHS, process.argv.slice(2)), process.argv.slice(2));
  process.exit(0);
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
type Scenario = { name: string; calendars: number; slots: number; commitShare: number; priority?: number };
/** The database-layer and naive rows: many calendars, and one hot calendar whose 4 slots are booked within the first second. */
const SCENARIOS: Scenario[] = [
  { name: "200 calendars", calendars: 200, slots: 16, commitShare: 0.5 },
  { name: "hot calendar, refusals", calendars: 1, slots: 4, commitShare: 0.5 },
];
/**
 * Over HTTP, also one calendar on which grants keep happening: 2,000 slots (six weeks), one
 * priority (nothing preempts), a tenth of the grants committed and the rest released at once by
 * the agent that got them, so most attempts are granted and every one of them queues for the
 * same calendar's lock. The refusal row above writes nothing and takes no lock once its 4 slots
 * are booked (during its uncounted first second): it times refusals only.
 */
const CONTENDED: Scenario = { name: "hot calendar, contended", calendars: 1, slots: 2000, commitShare: 0.1, priority: 50 };
const HTTP_SCENARIOS: Scenario[] = [...SCENARIOS, CONTENDED];
/**
 * Seconds of uncounted load on each fresh server first: the rows measure a warm server
 * (bench:cold-start measures a cold one): the hold and lease traffic, then the bare route,
 * each this long. After 3 s, V8's compiler threads were still busy optimising the request path
 * on this machine (perf: about a seventh of all CPU); after 10 s they are mostly idle.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
/** Each measured row's first second is not counted: 50 agents starting at once queue in step until they spread out. */
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 1);
const RTT_MS = process.argv.includes("--rtt-ms") ? Number(process.argv[process.argv.indexOf("--rtt-ms") + 1]) : 1;
const SLOT_MS = 30 * 60 * 1000;
const DAY = Date.UTC(2035, 5, 1, 6);

/** Overlapping busy pairs (confirmed events, and holds live now) in a workspace: must be 0. */
async function doubleBookings(workspaceId: string, includeAllHeld = false): Promise<number> {
  const db = await getDb();
  const { rows } = await db.execute<{ n: string }>(sql`
    with busy as (
      select e.calendar_id as cal, e.span, e.id from calendar_events e where e.status = 'confirmed' and e.workspace_id = ${workspaceId}
      union all
      select c.cal, tstzrange(h.start_time, h.end_time, '[)'), h.id
        from holds h cross join unnest(h.calendar_ids) as c(cal)
        where h.workspace_id = ${workspaceId} and h.status = 'held' and (${includeAllHeld} or h.expires_at > clock_timestamp())
    )
    select count(*)::text as n from busy a join busy b on a.cal = b.cal and a.id < b.id and a.span && b.span`);
  return Number(rows[0]!.n);
}

async function countPreempted(workspaceId: string): Promise<number> {
  const db = await getDb();
  const { rows } = await db.execute<{ n: string }>(sql`select count(*)::text as n from holds where workspace_id = ${workspaceId} and status = 'preempted'`);
  return Number(rows[0]!.n);
}

const pickSlot = (slots: number) => {
  const start = DAY + Math.floor(Math.random() * slots) * SLOT_MS;
  return { start: new Date(start), end: new Date(start + SLOT_MS) };
};

/**
 * Statements each request sends to the database (counted at the proxy; median of 15 tries, so
 * background work landing in one try does not count): place, then commit; place, then release.
 */
async function countStatements(url: string, key: string, calendarId: string, counter: () => number) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const tries: Record<string, number[]> = { "place hold": [], "commit hold": [], "release hold": [], "place hold with Idempotency-Key": [], "GET /v1/me": [] };
  const measure = async (name: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const before = counter();
    const res = await fetch(`${url}${path}`, { method: body === undefined ? "GET" : "POST", headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as { id?: string };
    tries[name]!.push(counter() - before);
    return json;
  };
  for (let i = 0; i < 15; i++) {
    const start = Date.UTC(2040, 0, 1) + i * 2 * SLOT_MS;
    const slot = (n: number) => ({ start_time: new Date(start + n * SLOT_MS).toISOString(), end_time: new Date(start + (n + 1) * SLOT_MS).toISOString(), priority: 50, hold_ttl_seconds: 30 });
    await measure("commit hold", `/api/v1/holds/${(await measure("place hold", `/api/v1/calendars/${calendarId}/holds`, slot(0))).id}/commit`, {});
    await measure("release hold", `/api/v1/holds/${(await measure("place hold", `/api/v1/calendars/${calendarId}/holds`, slot(1))).id}/release`, {});
    await measure("place hold with Idempotency-Key", `/api/v1/calendars/${calendarId}/holds`, { ...slot(1), priority: 0 }, { "idempotency-key": `bench-${start}` });
    await measure("GET /v1/me", "/api/v1/me");
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return Object.fromEntries(Object.entries(tries).map(([k, v]) => [k, median(v)]));
}

const progress = (label: string) => (done: number, elapsed: number) =>
  process.stderr.write(`\r  ${label}: ${done} attempts, ${Math.round(done / elapsed)}/s, ${elapsed.toFixed(0)} s   `);

type Row = { layer: string; scenario: string; summary: Summary; holds_per_s: number; conflicts: number; preemptions: number; double_bookings: number };
const rows: Row[] = [];
/**
 * The bare route, measured on the same server just before and just after each scenario at 0 ms:
 * the mean of the two is its ratios' denominator, so a machine whose speed drifts during a run
 * (this one's bare route swings up to 2x within minutes) drifts both sides of the ratio alike.
 */
const bareAround: Record<string, { before: Summary; after: Summary }> = {};
const bareRate = (name: string) => {
  const b = bareAround[name];
  return b ? (b.before.per_second + b.after.per_second) / 2 : undefined;
};
const statements: Record<string, number> = {};

type FreshRow = { state: string; summary: Summary; grants_per_s: number; double_bookings: number; tables_with_statistics: string[] };
let fresh: { rows: FreshRow[]; ratio: Ratio } | null = null;

/**
 * A freshly migrated database has no planner statistics until ANALYZE (or autovacuum, after
 * enough writes) runs: the 200-calendar row over HTTP on a database of its own and a server of
 * its own (warmed up like the others), first as migrated, then, on a second set of 200 calendars
 * made beside the first, after ANALYZE. Which tables had statistics after each row is recorded
 * (autovacuum may analyse a table on its own during the first).
 */
async function runFreshDatabaseRows(): Promise<{ rows: FreshRow[]; ratio: Ratio }> {
  const freshDb = await benchDatabase(["--db", "postgres"]);
  try {
    await connectBenchDatabase(freshDb.setupEnv);
    const workspaces = [await newWorkspaceWithKey("bench-fresh"), await newWorkspaceWithKey("bench-analysed")];
    const warm = await newWorkspaceWithKey("bench-fresh-warmup");
    await closeDb();
    const server = await startNextServer({ ...freshDb.env, ...SERVER_ENV });
    const admin = new pg.Client({ connectionString: freshDb.setupEnv.DATABASE_URL });
    await admin.connect();
    const analysed = async () =>
      (await admin.query<{ relname: string }>("select relname from pg_stat_user_tables where last_analyze is not null or last_autoanalyze is not null order by relname")).rows.map((r) => r.relname);
    const out: FreshRow[] = [];
    try {
      const calendars = [await createCalendars(server.url, workspaces[0]!.key, 200, "fresh"), await createCalendars(server.url, workspaces[1]!.key, 200, "analysed")];
      if (WARMUP_SECONDS > 0) {
        await warmUpServer(server.url, warm.key, { concurrency: AGENTS, seconds: WARMUP_SECONDS, onProgress: progress("warm-up, fresh database") });
        process.stderr.write("\n");
      }
      for (const [i, state] of ["freshly migrated, no ANALYZE", "after ANALYZE"].entries()) {
        if (i === 1) await admin.query("analyze");
        const summary = await runHoldsScenario(
          { url: server.url, key: workspaces[i]!.key, calendarIds: calendars[i]!, slots: 16, commitShare: 0.5 },
          { concurrency: AGENTS, seconds: SECONDS, settleSeconds: SETTLE_SECONDS, onProgress: progress(`HTTP, 200 calendars, ${state}`) },
        );
        process.stderr.write("\n");
        out.push({ state, summary, grants_per_s: Math.round((grantsIn(summary.outcomes) / summary.seconds) * 10) / 10, double_bookings: -1, tables_with_statistics: await analysed() });
      }
    } finally {
      await admin.end();
      await server.stop();
    }
    await connectBenchDatabase(freshDb.setupEnv);
    for (const [i, r] of out.entries()) r.double_bookings = await doubleBookings(workspaces[i]!.workspace.id);
    await closeDb();
    return { rows: out, ratio: atLeast("200 calendars: fresh database ÷ after ANALYZE (attempts/s)", out[0]!.summary.per_second, out[1]!.summary.per_second, null) };
  } finally {
    await freshDb.drop();
  }
}
const leaseRows: { where: string; scenario: string; bench: LeaseBench }[] = [];
const db = await benchDatabase(process.argv);
// BENCH_INNGEST_MS=0 with --slow-inngest: the same, with an event API that answers at once (the comparison).
const INNGEST_MS = Number(process.env.BENCH_INNGEST_MS ?? 2_000);
const slowInngest = process.argv.includes("--slow-inngest") ? await startSlowEventApi(INNGEST_MS) : null;
const inngestLabel = slowInngest ? `, Inngest ${INNGEST_MS} ms per send` : "";
try {
  await connectBenchDatabase(db.setupEnv);
  // The database a region-hop away needs a TCP hop to delay: a database server only.
  const delays = db.label === "pglite" ? [null] : [0, RTT_MS];
  const setups = [];
  for (const delay of delays) for (const s of HTTP_SCENARIOS) setups.push({ ...s, delay, ws: await newWorkspaceWithKey(`bench-holds-${s.calendars}-${delay}`) });
  const warmups = new Map<number | null, Awaited<ReturnType<typeof newWorkspaceWithKey>>>();
  for (const delay of delays) warmups.set(delay, await newWorkspaceWithKey(`bench-warmup-${delay}`));
  await closeDb();

  // 1. Over HTTP, against `next start`, its database direct or through the delaying proxy.
  for (const delay of delays) {
    const upstream = db.env.DATABASE_URL ? new URL(db.env.DATABASE_URL) : null;
    const proxy = upstream && delay !== null ? await startDelayProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) }, delay) : null;
    const serverDb = { ...db.env };
    if (proxy && upstream) {
      upstream.host = `127.0.0.1:${proxy.port}`;
      serverDb.DATABASE_URL = upstream.toString();
    }
    const server = await startNextServer({ ...serverDb, ...SERVER_ENV, ...slowInngest?.env });
    const where = `${delay === null ? "" : `, ${delay} ms each way`}${inngestLabel}`;
    try {
      // The first requests to each route load and compile its code: a few seconds of the same
      // traffic on a workspace of its own, uncounted, so no row's p99 is the server's start-up.
      if (WARMUP_SECONDS > 0) {
        const warm = warmups.get(delay)!;
        const load = { concurrency: AGENTS, seconds: WARMUP_SECONDS, onProgress: progress(`warm-up${where}`) };
        // The bare route too: measured cold, its first row ran at 60 % of its later rate.
        await warmUpServer(server.url, warm.key, load, () => runLeasesScenario({ url: server.url, key: warm.key, resources: 20, prefix: "warmup" }, load));
        process.stderr.write("\n");
      }
      for (const s of setups.filter((x) => x.delay === delay)) {
        const calendarIds = await createCalendars(server.url, s.ws.key, s.calendars, "bench");
        const bare = async (when: "before" | "after") => {
          const summary = await runBareRoute(server.url, { concurrency: AGENTS, seconds: SECONDS / 2, settleSeconds: SETTLE_SECONDS, onProgress: progress(`bare route /api/ping, ${when} ${s.name}`) });
          process.stderr.write("\n");
          return summary;
        };
        const measureBare = delay === 0 || delay === null;
        const before = measureBare ? await bare("before") : undefined;
        if (proxy && delay === 0 && s.name === SCENARIOS[1]!.name) Object.assign(statements, await countStatements(server.url, s.ws.key, calendarIds[0]!, proxy.statements));
        const summary = await runHoldsScenario(
          { url: server.url, key: s.ws.key, calendarIds, slots: s.slots, commitShare: s.commitShare, priority: s.priority },
          { concurrency: AGENTS, seconds: SECONDS, settleSeconds: SETTLE_SECONDS, onProgress: progress(`HTTP, ${s.name}${where}`) },
        );
        process.stderr.write("\n");
        if (before) bareAround[s.name] = { before, after: await bare("after") };
        rows.push({ layer: `HTTP (next start)${where}`, scenario: s.name, summary, holds_per_s: 0, conflicts: 0, preemptions: 0, double_bookings: -1 });
      }
      // Leases beside holds: the same agents on many resources, then on one hot resource.
      for (const s of setups.filter((x) => x.delay === delay && x.name !== CONTENDED.name)) {
        const resources = s.calendars === 1 ? 1 : 200;
        const scenario = resources === 1 ? "one hot resource" : "200 resources";
        const bench = await runLeasesScenario(
          { url: server.url, key: s.ws.key, resources, prefix: `bench-${resources}` },
          { concurrency: AGENTS, seconds: SECONDS, onProgress: progress(`HTTP leases, ${scenario}${where}`) },
        );
        process.stderr.write("\n");
        leaseRows.push({ where: `HTTP (next start)${where}`, scenario, bench });
      }
    } finally {
      await server.stop();
      await proxy?.close();
    }
  }
  await connectBenchDatabase(db.setupEnv);
  for (const [i, s] of setups.entries()) {
    const row = rows[i]!;
    row.holds_per_s = Math.round((grantsIn(row.summary.outcomes) / row.summary.seconds) * 10) / 10;
    row.conflicts = row.summary.outcomes.hold_conflict ?? 0;
    row.preemptions = await countPreempted(s.ws.workspace.id);
    row.double_bookings = await doubleBookings(s.ws.workspace.id);
  }

  // The database layer and the naive baseline run in this process on the direct connection:
  // the same on every server path, so measured on the direct one only.
  const layerScenarios = db.label === "postgres" || db.label === "pglite" ? SCENARIOS : [];
  await closeDb();
  if (db.label === "postgres" && !process.argv.includes("--no-fresh")) fresh = await runFreshDatabaseRows();
  await connectBenchDatabase(db.setupEnv);

  // 2. The same locked transaction without HTTP: the database's own limit.
  for (const s of layerScenarios) {
    const ws = await newWorkspaceWithKey(`raw-${s.calendars}`);
    const actor: Actor & { type: "key" } = { type: "key", workspaceId: ws.workspace.id, keyId: ws.keyRow.id, agentId: null };
    const cals: string[] = [];
    for (let i = 0; i < s.calendars; i++) cals.push((await createCalendar(actor, { name: `raw-${i}` })).id);
    const summary = await runLoad({ concurrency: AGENTS, seconds: SECONDS, settleSeconds: SETTLE_SECONDS, onProgress: progress(`database, ${s.name}`) }, async () => {
      const { start, end } = pickSlot(s.slots);
      try {
        const { hold } = await placeHold(actor, {
          calendar_ids: [cals[Math.floor(Math.random() * cals.length)]!],
          start_time: start.toISOString(),
          end_time: end.toISOString(),
          priority: Math.floor(Math.random() * 101),
          hold_ttl_seconds: 30,
          metadata: {},
        });
        await (Math.random() < s.commitShare ? commitHold(actor, hold.id) : releaseHold(actor, hold.id));
        return "granted";
      } catch (err) {
        if (err instanceof AppError) return err.code;
        throw err;
      }
    });
    process.stderr.write("\n");
    rows.push({
      layer: "database, locked",
      scenario: s.name,
      summary,
      holds_per_s: Math.round((grantsIn(summary.outcomes) / summary.seconds) * 10) / 10,
      conflicts: summary.outcomes.hold_conflict ?? 0,
      preemptions: await countPreempted(ws.workspace.id),
      double_bookings: await doubleBookings(ws.workspace.id),
    });
  }

  // 3. The naive baseline: check, then insert, no lock.
  for (const s of layerScenarios) {
    const ws = await newWorkspaceWithKey(`naive-${s.calendars}`);
    const actor: Actor = { type: "operator", workspaceId: ws.workspace.id, name: "bench" };
    const cals: string[] = [];
    for (let i = 0; i < s.calendars; i++) cals.push((await createCalendar(actor, { name: `naive-${i}` })).id);
    const summary = await runLoad({ concurrency: AGENTS, seconds: SECONDS, settleSeconds: SETTLE_SECONDS, onProgress: progress(`naive, ${s.name}`) }, async () => {
      const { start, end } = pickSlot(s.slots);
      const ok = await naivePlaceHold(ws.workspace.id, cals[Math.floor(Math.random() * cals.length)]!, start, end, 50);
      return ok ? "granted" : "hold_conflict";
    });
    process.stderr.write("\n");
    rows.push({
      layer: "naive check-then-insert",
      scenario: s.name,
      summary,
      holds_per_s: Math.round((grantsIn(summary.outcomes) / summary.seconds) * 10) / 10,
      conflicts: summary.outcomes.hold_conflict ?? 0,
      preemptions: 0,
      double_bookings: await doubleBookings(ws.workspace.id, true),
    });
  }
  await closeDb();
} finally {
  await db.drop();
  await slowInngest?.close();
}

console.log(`\nConflict engine — ${AGENTS} concurrent agents, ${SECONDS} s per row (its first ${SETTLE_SECONDS} s uncounted), database: ${db.label} (${db.about}), load generator on the same machine\n`);
console.log(
  table(
    rows.map((r) => ({
      layer: r.layer,
      scenario: r.scenario,
      "attempts/s": r.summary.per_second,
      "holds/s": r.holds_per_s,
      "p50 ms": r.summary.p50_ms,
      "p95 ms": r.summary.p95_ms,
      "p99 ms": r.summary.p99_ms,
      conflicts: r.conflicts,
      preemptions: r.preemptions,
      "double bookings": r.double_bookings,
    })),
  ),
);
if (leaseRows.length) {
  console.log(`\nLeases — ${AGENTS} concurrent agents; a granted lease is renewed once, then released; each operation timed alone\n`);
  console.log(
    table(
      leaseRows.flatMap((r) =>
        (["acquire", "renew", "release"] as const).map((op) => ({
          layer: r.where,
          scenario: r.scenario,
          operation: op,
          "ops/s": r.bench[op].per_second,
          "p50 ms": r.bench[op].p50_ms,
          "p99 ms": r.bench[op].p99_ms,
          "ok": r.bench[op].outcomes.ok ?? 0,
          refused: Object.entries(r.bench[op].outcomes).filter(([k]) => k !== "ok").map(([k, v]) => `${k} ${v}`).join(", ") || "0",
          "tokens increasing": r.bench.tokensOk ? "yes" : "NO",
        })),
      ),
    ),
  );
}
const perSecond = (layer: string, scenario: string) => rows.find((r) => r.layer === layer && r.scenario === scenario)?.summary;
const bares = Object.entries(bareAround);
if (bares.length) console.log(`\nBare route (/api/ping, ${AGENTS} clients, same server, just before and after each row): ${bares.map(([k, b]) => `around ${k} ${b.before.per_second} and ${b.after.per_second} req/s`).join(", ")}`);
if (Object.keys(statements).length) console.log(`Statements sent to the database per request (API door included): ${Object.entries(statements).map(([k, v]) => `${k} ${v}`).join(", ")}`);
const near = perSecond(`HTTP (next start), 0 ms each way${inngestLabel}`, "200 calendars");
const hot = perSecond(`HTTP (next start), 0 ms each way${inngestLabel}`, SCENARIOS[1]!.name);
const farNear = perSecond(`HTTP (next start), ${RTT_MS} ms each way${inngestLabel}`, "200 calendars");
const farHot = perSecond(`HTTP (next start), ${RTT_MS} ms each way${inngestLabel}`, SCENARIOS[1]!.name);
const contended = rows.find((r) => r.layer === `HTTP (next start), 0 ms each way${inngestLabel}` && r.scenario === CONTENDED.name);
const farContended = rows.find((r) => r.layer === `HTTP (next start), ${RTT_MS} ms each way${inngestLabel}` && r.scenario === CONTENDED.name);
const ratios: Ratio[] = [];
const bareNear = bareRate(SCENARIOS[0]!.name);
const bareHot = bareRate(SCENARIOS[1]!.name);
if (bareNear && bareHot && near && hot && farNear && farHot) {
  ratios.push(
    atLeast("HTTP attempts/s, 200 calendars × 2 ÷ bare route", near.per_second * 2, bareNear, 0.5),
    atLeast("HTTP attempts/s, hot calendar, refusals ÷ bare route", hot.per_second, bareHot, 0.6),
    atLeast(`hot calendar, refusals: attempts/s, ${RTT_MS} ms each way ÷ 0 ms`, farHot.per_second, hot.per_second, 0.75),
    // Unrounded grants/s (holds_per_s is rounded to a tenth).
    atLeast(`hot calendar, contended: grants/s, ${RTT_MS} ms each way ÷ 0 ms`, farContended && grantsIn(farContended.summary.outcomes) / farContended.summary.seconds, contended && grantsIn(contended.summary.outcomes) / contended.summary.seconds, 0.75),
    atLeast(`200 calendars, ${RTT_MS} ms each way ÷ 0 ms`, farNear.per_second, near.per_second, 0.8),
    { ratio: "p99 ms, 200 calendars (0 ms)", value: near.p99_ms, target: "≤ 400", met: near.p99_ms <= 400 },
  );
  console.log(`\n${table(ratios.map((x) => ({ ratio: x.ratio, value: x.value === null ? "" : String(x.value), target: x.target, met: metLabel(x) })))}`);
  // Little's law: with every agent always waiting on an attempt, the mean latency is agents ÷ rate, and no percentile above the median can be lower.
  console.log(`\n${AGENTS} agents at ${near.per_second} attempts/s (200 calendars): mean latency ${Math.round((AGENTS / near.per_second) * 1000)} ms by Little's law (agents ÷ rate); p50 ${near.p50_ms} ms, p99 ${near.p99_ms} ms.`);
}
if (contended && farContended) {
  const line = (r: Row) => `${r.holds_per_s} grants/s of ${r.summary.per_second} attempts/s, p99 ${r.summary.p99_ms} ms, double bookings ${r.double_bookings}`;
  console.log(`\nHot calendar, contended (${CONTENDED.slots} slots on one calendar, one priority, each grant released at once or, one in ${Math.round(1 / CONTENDED.commitShare)}, committed): 0 ms each way ${line(contended)}; ${RTT_MS} ms each way ${line(farContended)}.`);
}
if (fresh) {
  console.log(`\nFresh database (Postgres direct, a database and server of its own, 200 calendars, ${AGENTS} agents):\n`);
  console.log(
    table(
      fresh.rows.map((r) => ({
        database: r.state,
        "attempts/s": r.summary.per_second,
        "grants/s": r.grants_per_s,
        "p50 ms": r.summary.p50_ms,
        "p99 ms": r.summary.p99_ms,
        "double bookings": r.double_bookings,
        // The full list is in the results JSON.
        "tables with statistics after the row": `${r.tables_with_statistics.length}${["holds", "calendars", "calendar_events"].filter((t) => r.tables_with_statistics.includes(t)).map((t) => `, ${t}`).join("")}`,
      })),
    ),
  );
  console.log(`${fresh.ratio.ratio}: ${fresh.ratio.value ?? "not measured"} (stated; migrate running ANALYZE is what closes it)`);
}
if (slowInngest) console.log(`\nInngest's event API (${INNGEST_MS} ms per send) took ${slowInngest.events()} events from the server; each write answered without waiting for it.`);
console.log("\nHTTP and database rows: an attempt is a placement, and each granted hold is then committed or released (latency covers both).");
console.log("Naive rows: holds are only placed (no commit), so double bookings are overlapping held rows.");
const file = writeResults(`holds-${db.label}${slowInngest ? "-slow-inngest" : ""}`, { benchmark: "holds", database: db.label, slow_inngest_ms: slowInngest ? INNGEST_MS : null, agents: AGENTS, seconds: SECONDS, rtt_ms: RTT_MS, settle_seconds: SETTLE_SECONDS, warmup_seconds: WARMUP_SECONDS, machine: machine(), database_about: db.about, bare_route: bareAround, statements, ratios, rows, leases: leaseRows, fresh_database: fresh });
const reproduce = [
  ...(db.label === "pglite" ? [] : ["--db", db.label, "--rtt-ms", String(RTT_MS)]),
  ...(slowInngest ? ["--slow-inngest"] : []),
  ...(process.argv.includes("--no-fresh") ? ["--no-fresh"] : []),
  ...coreSplitArgs(),
];
console.log(`\nresults: ${file}\nreproduce: ${reproduceCommand("bench:holds", reproduce)}`);
