// Runs once when a server instance starts (Node.js runtime only).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { refuseToStartIfMisconfigured } = await import("./lib/config/check-startup");
    await refuseToStartIfMisconfigured();
    // The built-in job runner, unless Inngest runs the jobs (it returns at once during `next build`).
    const { startEmbeddedRunner } = await import("./lib/jobs/start-embedded-runner");
    startEmbeddedRunner();
    const { announceSetupLink } = await import("./lib/auth/announce-setup");
    void announceSetupLink();
  }
}
