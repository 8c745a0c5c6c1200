import { inngest } from "../client";
import { expireHolds } from "../../lib/holds/expire-holds";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Records expired holds and sends hold.expired, every 10 s or so. Liveness never waits for it. */
export const expireHoldsFunction = inngest.createFunction(
  { id: "expire-holds", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let expired = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      expired += await step.run(`expire-${i}`, () => expireHolds());
    }
    return { expired };
  },
);
