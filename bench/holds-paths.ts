import { table, type Summary } from "../cli/loadtest/stats";
import { atLeast, metLabel, normalisedRatio, type DbPath, type Ratio } from "./paths";
import { writeResults } from "./results";

/** The parts of one path's bench:holds results the comparison reads. */
export type HoldsResults = {
  database: DbPath;
  database_about?: string;
  rtt_ms: number;
  agents: number;
  seconds: number;
  measured?: { commit: string | null; dirty: boolean | null };
  bare_route: Record<string, { before: Summary; after: Summary }>;
  statements: Record<string, number>;
  rows: { layer: string; scenario: string; summary: Summary; holds_per_s: number; double_bookings: number }[];
};

/** The floor each path is held to against the direct one; null: the ratio is stated, not judged. */
export const PATH_TARGETS: Record<DbPath, number | null> = { postgres: null, pglite: null, "postgres-unprepared": null, pooled: 0.8, neon: null };

const ROWS = [
  { scenario: "200 calendars", metric: "attempts/s" as const },
  { scenario: "hot calendar, contended", metric: "grants/s" as const },
];

const rate = (r: HoldsResults["rows"][number] | undefined, metric: "attempts/s" | "grants/s") => (r ? (metric === "grants/s" ? r.holds_per_s : r.summary.per_second) : undefined);
const httpRow = (res: HoldsResults, scenario: string, delay: number) => res.rows.find((r) => r.layer === `HTTP (next start), ${delay} ms each way` && r.scenario === scenario);
const bareMean = (res: HoldsResults, scenario: string) => {
  const b = res.bare_route[scenario];
  return b ? (b.before.per_second + b.after.per_second) / 2 : undefined;
};

/**
 * Each path against the direct one (`postgres`): at 0 ms each way, both sides first divided by
 * the bare route of their own server (the runs are minutes apart on a machine whose speed
 * drifts; the raw ratio is shown beside it); at the delayed hop, the raw ratio (no bare route is
 * measured there). Pooled ÷ direct is held to ≥ 0.8 on the 200-calendar row; the others are stated.
 */
export function holdPathRatios(runs: { path: DbPath; results: HoldsResults }[]): Ratio[] {
  const direct = runs.find((r) => r.path === "postgres")?.results;
  if (!direct) return [];
  const out: Ratio[] = [];
  for (const { path, results } of runs) {
    if (path === "postgres") continue;
    for (const { scenario, metric } of ROWS) {
      const mine = rate(httpRow(results, scenario, 0), metric);
      const theirs = rate(httpRow(direct, scenario, 0), metric);
      const raw = mine !== undefined && theirs ? Math.round((mine / theirs) * 1000) / 1000 : null;
      const norm = normalisedRatio(mine, bareMean(results, scenario), theirs, bareMean(direct, scenario));
      const target = scenario === "200 calendars" ? PATH_TARGETS[path] : null;
      out.push(atLeast(`${path} ÷ postgres: ${scenario}, ${metric}, 0 ms (each ÷ its bare route)`, norm, norm === undefined ? undefined : 1, target, `raw ${raw ?? "—"}`));
      const far = rate(httpRow(results, scenario, results.rtt_ms), metric);
      const farDirect = rate(httpRow(direct, scenario, direct.rtt_ms), metric);
      out.push(atLeast(`${path} ÷ postgres: ${scenario}, ${metric}, ${results.rtt_ms} ms each way (raw)`, far, farDirect, null));
    }
  }
  return out;
}

/** Prints the paths side by side, their ratios and what limits them; writes the comparison's JSON. */
export function compareHoldPaths(runs: { path: DbPath; file: string; results: HoldsResults }[], argv: string[]): void {
  const rtt = runs[0]?.results.rtt_ms ?? 1;
  console.log(`\nDatabase paths — bench:holds, one run each (${runs.map((r) => r.path).join(", ")}), HTTP rows\n`);
  console.log(
    table(
      runs.map(({ path, results }) => {
        const cell = (scenario: string, delay: number, metric: "attempts/s" | "grants/s") => {
          const r = httpRow(results, scenario, delay);
          return r ? `${rate(r, metric)} (p99 ${r.summary.p99_ms} ms)` : "—";
        };
        return {
          path,
          "200 calendars attempts/s, 0 ms": cell("200 calendars", 0, "attempts/s"),
          [`200 calendars, ${rtt} ms`]: cell("200 calendars", rtt, "attempts/s"),
          "contended grants/s, 0 ms": cell("hot calendar, contended", 0, "grants/s"),
          [`contended, ${rtt} ms`]: cell("hot calendar, contended", rtt, "grants/s"),
          "bare route req/s": Math.round(bareMean(results, "200 calendars") ?? 0),
          "statements: place / commit / GET me": ["place hold", "commit hold", "GET /v1/me"].map((k) => results.statements[k] ?? "?").join(" / "),
          // The naive baseline's double bookings are its point; every other row must have none.
          "double bookings": results.rows.filter((r) => !r.layer.startsWith("naive")).reduce((n, r) => n + Math.max(0, r.double_bookings), 0),
        };
      }),
    ),
  );
  for (const { path, results } of runs) console.log(`  ${path}: ${results.database_about ?? ""}`);
  const ratios = holdPathRatios(runs);
  if (ratios.length) console.log(`\n${table(ratios.map((x) => ({ ratio: x.ratio, value: x.value === null ? "" : String(x.value), target: x.target, met: metLabel(x), "": x.note ?? "" })))}`);
  else console.log("\n(no `postgres` path in this run: the paths' ratios divide by the direct one)");
  const neon = runs.find((r) => r.path === "neon")?.results;
  const direct = runs.find((r) => r.path === "postgres")?.results;
  if (neon && direct) {
    const p50 = (res: HoldsResults) => httpRow(res, "200 calendars", 0)?.summary.p50_ms;
    console.log(
      `\nNeon's driver sends the same statements per request as node-postgres (place hold ${neon.statements["place hold"] ?? "?"} vs ${direct.statements["place hold"] ?? "?"}, counted at the proxy), each unnamed (no prepared statements: parsed and planned every time) and framed over a WebSocket through a proxy process on the same two cores; p50 per attempt on 200 calendars ${p50(neon)} ms vs ${p50(direct)} ms direct. With the same statements per request, what differs is each statement's cost on this path, not the number of round trips.`,
    );
  }
  const unprepared = runs.find((r) => r.path === "postgres-unprepared");
  console.log(
    `\nPrepared statements: Debian 12's PgBouncer is 1.18 (see the pooled path's line above), which cannot carry protocol-level prepared statements in transaction mode, so the pooled path runs them unnamed (DATABASE_PREPARED_STATEMENTS=off). Neon's pooler (PgBouncer ≥ 1.21 with max_prepared_statements) would allow them. ${
      unprepared
        ? `The stand-in measured here: the direct path with them off (postgres-unprepared ÷ postgres, above) is what a pooler that carries them would give back, at most.`
        : "Add postgres-unprepared to --db to measure the stand-in (the direct path with them off ÷ on)."
    } Running the pooled path with them on through 1.18 would measure nothing more: the server falls back to unnamed statements at the first refusal.`,
  );
  const file = writeResults(`holds-paths-${runs.map((r) => r.path).join("-")}`, {
    benchmark: "holds-paths",
    paths: runs.map((r) => ({ path: r.path, results_file: r.file, about: r.results.database_about, measured: r.results.measured })),
    ratios,
  });
  console.log(`\nresults: ${file} (and each path's own file)\nreproduce: npm run bench:holds -- ${argv.join(" ")}`);
}
