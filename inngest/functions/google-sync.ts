import { inngest } from "../client";
import { syncDueLinks } from "../../lib/google/sync-calendar";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Imports busy time from linked Google calendars that are due (push notification, periodic resync, retry), every 10 s or so. */
export const googleSyncFunction = inngest.createFunction(
  { id: "google-sync", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let synced = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      synced += await step.run(`sync-${i}`, () => syncDueLinks());
    }
    return { synced };
  },
);
