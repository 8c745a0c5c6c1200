import { env } from "../config/env";

/** Who runs background jobs: JOB_RUNNER, or Inngest when its keys are set, else the embedded runner. */
export function jobRunnerMode(): "embedded" | "inngest" | "off" {
  const e = env();
  if (e.JOB_RUNNER) return e.JOB_RUNNER;
  return e.INNGEST_SIGNING_KEY || e.INNGEST_EVENT_KEY ? "inngest" : "embedded";
}
