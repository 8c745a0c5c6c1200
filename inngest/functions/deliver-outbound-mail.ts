import { inngest } from "../client";
import { deliverOutboundMail } from "../../lib/mail/outbound/deliver-outbound";
import { deliverSystemMail } from "../../lib/mail/deliver-system-mail";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Hands queued agent and system mail to Resend, every 10 s or so; retries and leases live in lib. */
export const deliverOutboundMailFunction = inngest.createFunction(
  { id: "deliver-outbound-mail", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let sent = 0;
    let retried = 0;
    let failed = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      const agents = await step.run(`send-mail-${i}`, () => deliverOutboundMail());
      const system = await step.run(`send-system-mail-${i}`, () => deliverSystemMail());
      sent += agents.sent + system.sent;
      retried += agents.retried + system.retried;
      failed += agents.failed + system.failed;
    }
    return { sent, retried, failed };
  },
);
