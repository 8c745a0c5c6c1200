import { spawnSync } from "node:child_process";

/**
 * The database paths a bench can run its server on (`--db a,b,c`):
 * - `pglite`: the embedded database (the default);
 * - `postgres`: the local Postgres, direct, node-postgres with named prepared statements;
 * - `postgres-unprepared`: the same with DATABASE_PREPARED_STATEMENTS=off (what a pooler that
 *   cannot carry prepared statements costs, measured without a pooler);
 * - `pooled`: Debian's PgBouncer (1.18) in transaction mode in front of it, node-postgres,
 *   prepared statements off (1.18 does not track them), migrations on the direct URL;
 * - `neon`: Neon's serverless driver through a local WebSocket-to-TCP proxy to the same Postgres.
 */
export const DB_PATHS = ["pglite", "postgres", "postgres-unprepared", "pooled", "neon"] as const;
export type DbPath = (typeof DB_PATHS)[number];

/** `--db postgres,pooled,neon` → the paths in order, without repeats; no `--db` → pglite. Throws on an unknown or missing name. */
export function parseDbPaths(argv: string[]): DbPath[] {
  const i = argv.indexOf("--db");
  if (i === -1) return ["pglite"];
  const value = argv[i + 1];
  if (!value || value.startsWith("--")) throw new Error(`--db needs a value: one or more of ${DB_PATHS.join(", ")}, comma-separated`);
  const names = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new Error(`--db needs a value: one or more of ${DB_PATHS.join(", ")}, comma-separated`);
  const unknown = names.filter((n) => !(DB_PATHS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`--db: unknown database path ${unknown.map((u) => `"${u}"`).join(", ")} (known: ${DB_PATHS.join(", ")})`);
  return [...new Set(names)] as DbPath[];
}

/** The arguments with `--db <list>` replaced by `--db <one>`: what each path's own run is given. */
export function argvForPath(argv: string[], path: DbPath): string[] {
  const i = argv.indexOf("--db");
  const rest = i === -1 ? [...argv] : [...argv.slice(0, i), ...argv.slice(i + 2)];
  return [...rest, "--db", path];
}

export type Ratio = { ratio: string; value: number | null; target: string; met: boolean | null; note?: string };

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A ratio against a floor, decided on the unrounded value (0.796 is not met by rounding to 0.8).
 * A missing side (a row not measured) gives null, printed as "not measured", never as met.
 */
export function atLeast(ratio: string, numerator: number | undefined, denominator: number | undefined, min: number | null, note?: string): Ratio {
  if (numerator === undefined || denominator === undefined || !(denominator > 0)) return { ratio, value: null, target: min === null ? "stated" : `≥ ${min}`, met: null, note };
  const value = numerator / denominator;
  return { ratio, value: round3(value), target: min === null ? "stated" : `≥ ${min}`, met: min === null ? null : value >= min, note };
}

/** "yes", "NO", "not measured" or "—" (stated, no target), for the tables. */
export function metLabel(r: Ratio): string {
  if (r.value === null) return "not measured";
  if (r.met === null) return "—";
  return r.met ? "yes" : "NO";
}

/**
 * A path's rate relative to the direct path, each first divided by the bare route measured on its
 * own server (the runs are minutes apart on a machine whose speed drifts): (a ÷ bare_a) ÷ (b ÷ bare_b).
 */
export function normalisedRatio(rate: number | undefined, bare: number | undefined, directRate: number | undefined, directBare: number | undefined): number | undefined {
  if (rate === undefined || bare === undefined || directRate === undefined || directBare === undefined) return undefined;
  if (!(bare > 0) || !(directBare > 0) || !(directRate > 0)) return undefined;
  return rate / bare / (directRate / directBare);
}

/** The commit a result measured, and whether the working tree had changes beside it. */
export function commitInfo(cwd = process.cwd()): { commit: string | null; dirty: boolean | null } {
  const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd, encoding: "utf8" });
  if (head.status !== 0) return { commit: null, dirty: null };
  const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd, encoding: "utf8" });
  return { commit: head.stdout.trim(), dirty: status.status === 0 ? status.stdout.trim().length > 0 : null };
}

/** The command that reproduces a run: `npm run <script>`, then its flags after `--` when there are any. */
export function reproduceCommand(script: string, args: string[]): string {
  return `npm run ${script}${args.length ? ` -- ${args.join(" ")}` : ""}`;
}
