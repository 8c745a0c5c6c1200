import { inngest } from "../client";
import { deliverDueWebhooks } from "../../lib/webhooks/deliver";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Sends due webhook deliveries and retries, every 10 s or so. Thin: the rules live in lib/webhooks/deliver.ts. */
export const webhookDeliveries = inngest.createFunction(
  { id: "webhook-deliveries", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let attempted = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      attempted += (await step.run(`deliver-${i}`, () => deliverDueWebhooks())).attempted;
    }
    return { attempted };
  },
);
