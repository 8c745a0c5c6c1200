import { table, type Summary } from "../cli/loadtest/stats";
import { atLeast, metLabel, normalisedRatio, type DbPath, type Ratio } from "./paths";
import { PATH_TARGETS } from "./holds-paths";
import { writeResults } from "./results";

/** The parts of one path's bench:api results the comparison reads. */
export type ApiResults = {
  database: DbPath;
  database_about?: string;
  measured?: { commit: string | null; dirty: boolean | null };
  results: { target: string; clients: number; summary: Summary }[];
};

const BARE = "bare route (GET /api/ping)";
const TARGETS = ["authenticated GET /api/v1/me", "idempotent POST /api/v1/calendars"];

const cell = (res: ApiResults, target: string, clients: number) => res.results.find((r) => r.target === target && r.clients === clients)?.summary;

/**
 * Each path against the direct one (`postgres`), at 50 clients (the most the bench runs): each
 * target's req/s first divided by the bare route of its own server. Pooled ÷ direct is held to ≥ 0.8.
 */
export function apiPathRatios(runs: { path: DbPath; results: ApiResults }[], clients = 50): Ratio[] {
  const direct = runs.find((r) => r.path === "postgres")?.results;
  if (!direct) return [];
  const out: Ratio[] = [];
  for (const { path, results } of runs) {
    if (path === "postgres") continue;
    for (const target of TARGETS) {
      const mine = cell(results, target, clients)?.per_second;
      const theirs = cell(direct, target, clients)?.per_second;
      const norm = normalisedRatio(mine, cell(results, BARE, clients)?.per_second, theirs, cell(direct, BARE, clients)?.per_second);
      const raw = mine !== undefined && theirs ? Math.round((mine / theirs) * 1000) / 1000 : null;
      out.push(atLeast(`${path} ÷ postgres: ${target}, ${clients} clients (each ÷ its bare route)`, norm, norm === undefined ? undefined : 1, PATH_TARGETS[path], `raw ${raw ?? "—"}`));
    }
  }
  return out;
}

export function compareApiPaths(runs: { path: DbPath; file: string; results: ApiResults }[], argv: string[]): void {
  console.log(`\nDatabase paths — bench:api, one run each (${runs.map((r) => r.path).join(", ")}), 50 clients\n`);
  console.log(
    table(
      runs.map(({ path, results }) => ({
        path,
        ...Object.fromEntries([BARE, ...TARGETS].map((t) => [t, (() => { const s = cell(results, t, 50); return s ? `${s.per_second} (p99 ${s.p99_ms} ms)` : "—"; })()])),
      })),
    ),
  );
  for (const { path, results } of runs) console.log(`  ${path}: ${results.database_about ?? ""}`);
  const ratios = apiPathRatios(runs);
  if (ratios.length) console.log(`\n${table(ratios.map((x) => ({ ratio: x.ratio, value: x.value === null ? "" : String(x.value), target: x.target, met: metLabel(x), "": x.note ?? "" })))}`);
  else console.log("\n(no `postgres` path in this run: the paths' ratios divide by the direct one)");
  console.log("\nThe statements each request sends do not depend on the path (bench:holds counts them at its proxy, `GET /v1/me` among them); what differs is each statement's cost on the path: a pooler's extra hop, unnamed statements (parsed and planned each time), the Neon driver's WebSocket framing through a proxy process on the same cores.");
  const file = writeResults(`api-paths-${runs.map((r) => r.path).join("-")}`, {
    benchmark: "api-paths",
    paths: runs.map((r) => ({ path: r.path, results_file: r.file, about: r.results.database_about, measured: r.results.measured })),
    ratios,
  });
  console.log(`\nresults: ${file} (and each path's own file)\nreproduce: npm run bench:api -- ${argv.join(" ")}`);
}
