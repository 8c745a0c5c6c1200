import { inngest } from "../client";
import { runDueExports } from "../../lib/google/export-event";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Copies committed events to Google and removes cancelled ones, with retries, every 10 s or so. */
export const googleExportFunction = inngest.createFunction(
  { id: "google-export", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let attempted = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      attempted += (await step.run(`export-${i}`, () => runDueExports())).attempted;
    }
    return { attempted };
  },
);
