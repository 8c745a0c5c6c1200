import { inngest } from "../client";
import { deliverOutboundMail } from "../../lib/mail/outbound/deliver-outbound";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Hands queued agent mail to Resend, every 10 s or so; retries and leases live in lib. */
export const deliverOutboundMailFunction = inngest.createFunction(
  { id: "deliver-outbound-mail", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let sent = 0;
    let retried = 0;
    let failed = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      const round = await step.run(`send-mail-${i}`, () => deliverOutboundMail());
      sent += round.sent;
      retried += round.retried;
      failed += round.failed;
    }
    return { sent, retried, failed };
  },
);
