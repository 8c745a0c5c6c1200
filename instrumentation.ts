// Runs once when a server instance starts (Node.js runtime only).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { refuseToStartIfMisconfigured } = await import("./lib/composition/check-startup");
    await refuseToStartIfMisconfigured();
    // The embedded engine, unless Inngest runs background work: then nothing of it is even
    // loaded, so a function's cold start pays only for what its request uses.
    const { jobRunnerMode } = await import("./lib/platform/jobs/job-runner-mode");
    if (jobRunnerMode() !== "embedded") return;
    const { startEmbeddedRunner } = await import("./lib/composition/start-embedded-runner");
    startEmbeddedRunner();
    const { announceSetupLink } = await import("./lib/domains/auth/announce-setup");
    void announceSetupLink();
  }
}
