// Runs once when a server instance starts (Node.js runtime only).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { refuseToStartIfMisconfigured } = await import("./lib/config/check-startup");
    await refuseToStartIfMisconfigured();
  }
}
