import { env } from "../platform/config/env";
import { resolveDatabaseConfig } from "../../db/config";
import { enabledCrons, enabledKinds } from "./job-kinds";
import { createEngine, type Engine } from "../platform/jobs/engine";
import { acquireRunnerLock } from "../platform/jobs/runner-lock";
import { embeddedRefusal, jobRunnerMode } from "../platform/jobs/job-runner-mode";

export { embeddedRefusal };
import { setLocalEngine } from "../platform/jobs/schedule";

const globalForRunner = globalThis as unknown as { __agentdraftRunner?: Engine };

/**
 * With nothing due, how long the engine sleeps before asking the database again. Work committed
 * in this process wakes it at once; the poll only finds work from other processes (and what a
 * crash left), so on PGlite, which belongs to this process alone, it can be rare.
 */
function idlePollMs(): number {
  return env().JOB_IDLE_POLL_MS ?? (resolveDatabaseConfig().driver === "pglite" ? 60_000 : 2_000);
}

/**
 * Starts the embedded engine in this server process, unless Inngest runs the work or
 * JOB_RUNNER=off. Never during `next build`, and not on Vercel unless asked for explicitly.
 * Called once from instrumentation.ts.
 */
export function startEmbeddedRunner(): void {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  if (jobRunnerMode() !== "embedded" || globalForRunner.__agentdraftRunner) return;
  const refusal = embeddedRefusal();
  if (refusal) {
    console.error(`[jobs] ${refusal}`);
    return;
  }
  const kinds = enabledKinds();
  const engine = createEngine({
    kinds,
    crons: enabledCrons(),
    concurrency: env().JOB_CONCURRENCY,
    idlePollMs: idlePollMs(),
    acquireLock: () => acquireRunnerLock(),
  });
  globalForRunner.__agentdraftRunner = engine;
  setLocalEngine(engine);
  engine.start();
  console.log(`[jobs] embedded engine started (${env().JOB_CONCURRENCY} at once): ${kinds.map((k) => k.name).join(", ")}`);
}
