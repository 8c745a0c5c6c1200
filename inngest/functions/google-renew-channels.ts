import { inngest } from "../client";
import { renewChannels } from "../../lib/google/push-channel";

/** Every 15 minutes: opens missing Google push channels and renews those expiring within a day. */
export const googleRenewChannelsFunction = inngest.createFunction(
  { id: "google-renew-channels", triggers: [{ cron: "*/15 * * * *" }], concurrency: 1 },
  async ({ step }) => ({ renewed: await step.run("renew", () => renewChannels()) }),
);
