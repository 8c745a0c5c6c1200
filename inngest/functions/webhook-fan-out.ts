import { inngest } from "../client";
import { fanOutEvents } from "../../lib/webhooks/fan-out";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Turns outbox events into deliveries, every 10 s or so. Thin: the rule lives in lib/webhooks/fan-out.ts. */
export const webhookFanOut = inngest.createFunction(
  { id: "webhook-fan-out", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let deliveries = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      deliveries += (await step.run(`fan-out-${i}`, () => fanOutEvents())).deliveries;
    }
    return { deliveries };
  },
);
