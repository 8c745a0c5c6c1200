import fs from "node:fs";
import path from "node:path";

/**
 * The extra runs a test file takes part in, named on its first line:
 *
 *     // @suite pooled moved-clock
 *
 * - `pooled`: the file also runs through PgBouncer (transaction mode) with Neon's serverless
 *   driver, production's shape. Mark a database test that exercises what only the pooler and that
 *   driver change: transactions, prepared statements, the door and idempotency, advisory locks,
 *   the event stream, LISTEN/NOTIFY.
 * - `moved-clock`: the file also runs under a clock moved by a random offset within ±10 years
 *   (.ci/moved-clock). Mark a file whose behaviour depends on the current time: windows,
 *   expiries, leases, schedules, retries, daylight saving, "today".
 *
 * Every test file runs on the embedded database and (database tests) on a Postgres server
 * regardless; the marks only add runs.
 */
export const SUITES = /** @type {const} */ (["pooled", "moved-clock"]);

const MARK = /^\/\/ @suite ((?:[a-z-]+ ?)+)$/;
const SKIPPED = new Set(["node_modules", ".next", ".data", ".git", "e2e", "test-results"]);

/**
 * The suites named on a file's first line, or [] when it names none. Throws on an unknown suite.
 * @param {string} file
 * @returns {string[]}
 */
export function suitesOf(file, text = fs.readFileSync(file, "utf8")) {
  const first = text.slice(0, text.indexOf("\n") >>> 0);
  if (!first.startsWith("// @suite")) return [];
  const m = MARK.exec(first.trimEnd());
  const names = m ? m[1].trim().split(" ") : [];
  const unknown = names.filter((n) => !SUITES.includes(n));
  if (!m || names.length === 0 || unknown.length > 0) {
    throw new Error(`${file}: its first line "${first}" names no suite this project has; write "// @suite" and then some of: ${SUITES.join(", ")}.`);
  }
  return names;
}

/**
 * Every `*.test.ts` under root (skipping dependencies, builds and the browser suite), relative to root.
 * @param {string} root
 * @returns {string[]}
 */
export function testFiles(root) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(path.join(dir, entry.name));
      } else if (entry.name.endsWith(".test.ts")) found.push(path.relative(root, path.join(dir, entry.name)));
    }
  };
  walk(root);
  return found.sort();
}

/**
 * The test files under root marked for a suite, relative to root.
 * @param {string} root
 * @param {"pooled" | "moved-clock"} suite
 * @returns {string[]}
 */
export function filesMarked(root, suite) {
  return testFiles(root).filter((f) => suitesOf(path.join(root, f)).includes(suite));
}

/**
 * The test files under root that replace a module with `vi.mock` or `vi.doMock`, relative to root.
 * @param {string} root
 * @returns {string[]}
 */
export function filesMocking(root) {
  return testFiles(root).filter((f) => /\bvi\.(do)?[mM]ock\(/.test(fs.readFileSync(path.join(root, f), "utf8")));
}
