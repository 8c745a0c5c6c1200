import { env } from "../config/env";
import { JOBS } from "./registry";
import { createRunner } from "./runner";
import { acquireRunnerLock } from "./runner-lock";
import { jobRunnerMode } from "./job-runner-mode";

const globalForRunner = globalThis as unknown as { __agentdraftRunner?: ReturnType<typeof createRunner> };

/**
 * Starts the built-in job runner in this server process, unless Inngest runs the jobs or
 * JOB_RUNNER=off. Never during `next build`. Called once from instrumentation.ts.
 */
export function startEmbeddedRunner(): void {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  if (jobRunnerMode() !== "embedded" || globalForRunner.__agentdraftRunner) return;
  const runner = createRunner({ jobs: JOBS, tickMs: env().JOB_RUNNER_TICK_MS, acquireLock: acquireRunnerLock });
  globalForRunner.__agentdraftRunner = runner;
  runner.start();
  console.log(`[jobs] embedded runner started: ${JOBS.map((j) => j.name).join(", ")}`);
}
