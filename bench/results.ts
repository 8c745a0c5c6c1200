import fs from "node:fs";
import { commitInfo } from "./paths";

/**
 * Writes a bench's results under bench/results/, stating the commit they measured and whether
 * the tree had uncommitted changes to tracked files beside it (`measured`).
 */
export function writeResults(name: string, results: unknown): string {
  fs.mkdirSync("bench/results", { recursive: true });
  const file = `bench/results/${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  fs.writeFileSync(file, JSON.stringify({ measured: commitInfo(), ...(results as object) }, null, 2) + "\n");
  // A run of several paths reads each path's results back (bench/run-paths.ts).
  if (process.env.BENCH_RESULTS_OUT) fs.writeFileSync(process.env.BENCH_RESULTS_OUT, file);
  return file;
}
