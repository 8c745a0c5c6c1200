import { AppError } from "../errors";

/** Why this instance cannot serve: a sentence an operator can act on, and whether it may pass by itself. */
export type StartupProblem = { reason: string; transient: boolean };
/** Runs the start-up checks again (lib/composition/check-startup.ts hands it over with its outcome). */
export type Diagnose = () => Promise<StartupProblem | null>;

type GateState = { checked: boolean; problem: StartupProblem | null; diagnose?: Diagnose; recheck?: Promise<StartupProblem | null> };

// On globalThis: Next.js may load this module once per route bundle, and instrumentation.ts
// records the first check for all of them.
const globalForGate = globalThis as unknown as { __agentdraftStartupGate?: GateState };
const state = (): GateState => (globalForGate.__agentdraftStartupGate ??= { checked: false, problem: null });

/** Remembers the start-up check's outcome (instrumentation.ts), so requests need not repeat it. */
export function recordStartupCheck(problem: StartupProblem | null, diagnose?: Diagnose): void {
  const s = state();
  s.checked = true;
  s.problem = problem;
  if (diagnose) s.diagnose = diagnose;
}

/** Tests: forget the outcome, as a fresh instance would. */
export function resetStartupGate(): void {
  globalForGate.__agentdraftStartupGate = undefined;
}

/**
 * Why this instance cannot serve now, or null (also before any check was recorded). A configuration problem stands until a redeploy;
 * a transient one (the database not answering yet) is checked again, once for all requests
 * arriving meanwhile, so the first request after the database wakes is served.
 */
export async function startupProblem(): Promise<StartupProblem | null> {
  const s = state();
  // Unchecked: not a server started through instrumentation.ts (a test calling a route itself).
  if (!s.checked || !s.problem?.transient || !s.diagnose) return s.problem;
  s.recheck ??= s
    .diagnose()
    .then((problem) => {
      recordStartupCheck(problem);
      return problem;
    })
    .finally(() => {
      s.recheck = undefined;
    });
  return s.recheck;
}

/** Throws the 503 problem (`service_unavailable`, with the reason) when this instance cannot serve. */
export async function assertReadyToServe(): Promise<void> {
  const problem = await startupProblem();
  if (!problem) return;
  throw new AppError(
    "service_unavailable",
    problem.transient ? `AgentDraft is starting: ${problem.reason} Try again shortly.` : `AgentDraft is not configured correctly: ${problem.reason}`,
    { reason: problem.transient ? "database_unavailable" : "misconfigured" },
    problem.transient ? { "retry-after": "2" } : {},
  );
}
