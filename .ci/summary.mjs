// The end of CI's summary, from the runners' JSON reports in CI_OUT (vitest's per job, Playwright's
// for e2e): one line of counts over every runner, then each failed test by job, file and name, so
// the last lines of a failed run say what failed without reading the logs above.
//   node .ci/summary.mjs <dir>
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

/** Playwright's report: suites nest (file → describe → …), each spec holds tests with results. */
function playwrightFailures(suites, job, file = "") {
  for (const s of suites ?? []) {
    const here = s.file ?? file;
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status === "unexpected" || t.status === "flaky") {
          const last = t.results?.at(-1);
          const why = last?.error?.message?.split("\n")[0] ?? last?.status ?? "";
          failures.push({ job, file: `e2e/${here}:${spec.line}`, name: `[${t.projectName}] ${spec.title}`, why, flaky: t.status === "flaky" });
        }
      }
    }
    playwrightFailures(s.suites, job, here);
  }
}

for (const f of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
  const job = f.replace(/\.json$/, "");
  let r;
  try {
    r = JSON.parse(readFileSync(path.join(dir, f), "utf8"));
  } catch {
    failures.push({ job, file: f, name: "(its report could not be read: the runner ended before writing it)", why: "" });
    continue;
  }
  if (r.stats) {
    passed += r.stats.expected ?? 0;
    failed += r.stats.unexpected ?? 0;
    skipped += r.stats.skipped ?? 0;
    playwrightFailures(r.suites, job);
    continue;
  }
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  for (const file of r.testResults ?? []) {
    const rel = path.relative(process.cwd(), file.name);
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failedTests) failures.push({ job, file: rel, name: a.fullName ?? a.title, why: (a.failureMessages?.[0] ?? "").split("\n")[0] });
    // A file that failed outside any test (an import, a hook) has no failed test to name.
    if (file.status === "failed" && failedTests.length === 0) failures.push({ job, file: rel, name: "(the file itself: a hook or an import failed)", why: (file.message ?? "").split("\n")[0] });
  }
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failures.length) {
  console.log("\nwhat failed:");
  for (const x of failures) {
    console.log(`  ${x.job.padEnd(12)} ${x.file} › ${x.name}${x.flaky ? "  (passed on retry)" : ""}`);
    if (x.why) console.log(`  ${" ".repeat(12)} ${x.why.slice(0, 300)}`);
  }
}
