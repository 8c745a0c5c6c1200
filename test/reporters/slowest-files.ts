import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = Number(process.env.SLOWEST_FILES ?? 12);

/**
 * Prints the test files that took longest, each with where its time went, after the run's own
 * summary: the next slowdown shows up in the output of every run, not in a later investigation.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    if (SHOWN <= 0 || modules.length === 0) return;
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      const start = d.prepareDuration + d.environmentSetupDuration + d.setupDuration;
      return { file: path.relative(process.cwd(), m.moduleId), project: m.project.name, start, load: d.collectDuration, tests: d.duration, total: start + d.collectDuration + d.duration };
    });
    rows.sort((a, b) => b.total - a.total);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(7);
    const sum = rows.reduce((t, r) => t + r.total, 0);
    const lines = [`\nSlowest test files (of ${rows.length}; ${s(sum).trim()} in workers altogether): total = start (setup files) + import + tests`];
    for (const r of rows.slice(0, SHOWN)) lines.push(`${s(r.total)} = ${s(r.start)} + ${s(r.load)} + ${s(r.tests)}  ${r.project.padEnd(8)} ${r.file}`);
    console.log(lines.join("\n"));
  }
}
