import { env } from "../../platform/config/env";
import { isSetupOpen } from "./setup-status";
import { setupToken } from "./setup-token";
import { publicOrigin } from "../../platform/config/public-url";

/**
 * At server start, outside production, while nobody has an account: prints the first-run link
 * with its setup token, so the person who started the server (and only they) can become owner.
 */
export async function announceSetupLink(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build" || env().NODE_ENV === "production") return;
  try {
    if (!(await isSetupOpen())) return;
    const origin = publicOrigin();
    console.log(`\nAgentDraft first run: open ${origin}/setup?token=${setupToken()} to create your workspace.\n`);
  } catch (err) {
    console.error("[setup] could not tell whether first run is open:", (err as Error).message);
  }
}
