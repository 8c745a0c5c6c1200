import { env } from "../config/env";

/** Who runs background jobs: JOB_RUNNER, or Inngest when its keys are set, else the embedded runner. */
export function jobRunnerMode(): "embedded" | "inngest" | "off" {
  const e = env();
  if (e.JOB_RUNNER) return e.JOB_RUNNER;
  return e.INNGEST_SIGNING_KEY || e.INNGEST_EVENT_KEY ? "inngest" : "embedded";
}

/** Why the embedded engine will not start here, or null when it may. */
export function embeddedRefusal(): string | null {
  if (process.env.VERCEL && env().JOB_RUNNER !== "embedded") {
    return (
      "Background work is not running: the embedded engine does not start on Vercel, where functions freeze between requests. " +
      "Configure Inngest (set INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY, see docs/production.md, /docs/production), or set JOB_RUNNER=embedded to run it anyway."
    );
  }
  return null;
}
