import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { argvForPath, type DbPath } from "./paths";

/**
 * Runs this bench once per database path, one after another, each in a process of its own (a
 * fresh server, database and pooler each; the bench's module state is per run), and returns each
 * run's results JSON. The first run builds the app (unless BENCH_SKIP_BUILD=1); the others reuse it.
 */
export async function runPaths<T>(paths: DbPath[], argv: string[]): Promise<{ path: DbPath; file: string; results: T }[]> {
  const out: { path: DbPath; file: string; results: T }[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-bench-paths-"));
  try {
    for (const [i, p] of paths.entries()) {
      const marker = path.join(dir, `${p}.txt`);
      console.error(`\n=== database path ${i + 1}/${paths.length}: ${p} ===`);
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...argvForPath(argv, p)], {
          stdio: "inherit",
          env: { ...process.env, BENCH_RESULTS_OUT: marker, ...(i > 0 ? { BENCH_SKIP_BUILD: "1" } : {}) },
        });
        child.on("error", reject);
        child.on("exit", resolve);
      });
      if (code !== 0) throw new Error(`the run on ${p} exited with ${code}`);
      const file = fs.readFileSync(marker, "utf8").trim();
      out.push({ path: p, file, results: JSON.parse(fs.readFileSync(file, "utf8")) as T });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
