import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = Number(process.env.SLOWEST_FILES ?? 12);

/**
 * Prints, after the run's own summary, each project's files and time (in workers altogether, and
 * from its first file's start to its last file's end), then the test files that took longest, each
 * with where its time went: the next slowdown shows up in the output of every run, not in a later
 * investigation.
 */
export default class SlowestFiles implements Reporter {
  private spans = new Map<string, { from: number; to: number }>();

  onTestModuleQueued(m: TestModule) {
    const span = this.spans.get(m.project.name);
    if (!span) this.spans.set(m.project.name, { from: Date.now(), to: Date.now() });
  }

  onTestModuleEnd(m: TestModule) {
    const span = this.spans.get(m.project.name);
    if (span) span.to = Date.now();
  }

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
    const lines = ["\nBy project: files, time in workers altogether, wall time from the first file's start to the last one's end"];
    for (const p of byProject(modules, this.spans)) lines.push(`${p.name.padEnd(10)} ${String(p.files).padStart(4)} files ${s(p.work)} ${s(p.wall)}`);
    lines.push(`\nSlowest test files (of ${rows.length}; ${s(sum).trim()} in workers altogether): total = start (setup files) + import + tests`);
    for (const r of rows.slice(0, SHOWN)) lines.push(`${s(r.total)} = ${s(r.start)} + ${s(r.load)} + ${s(r.tests)}  ${r.project.padEnd(8)} ${r.file}`);
    console.log(lines.join("\n"));
  }
}

/** Per project: how many files, their time summed, and the span from its first file's start to its last file's end. */
function byProject(modules: ReadonlyArray<TestModule>, spans: Map<string, { from: number; to: number }>) {
  const projects = new Map<string, { name: string; files: number; work: number; wall: number }>();
  for (const m of modules) {
    const d = m.diagnostic();
    const name = m.project.name;
    const p = projects.get(name) ?? { name, files: 0, work: 0, wall: spans.has(name) ? spans.get(name)!.to - spans.get(name)!.from : 0 };
    p.files += 1;
    p.work += d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration + d.duration;
    projects.set(name, p);
  }
  return [...projects.values()];
}
