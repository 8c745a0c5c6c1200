import { inngest } from "../client";
import { sealAuditChain } from "../../lib/audit/seal-chain";
import { ROUND_PAUSE, ROUNDS } from "./rounds";

/** Chains appended audit entries, every 10 s or so (reading the trail seals too). */
export const sealAuditChainFunction = inngest.createFunction(
  { id: "seal-audit-chain", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => {
    let sealed = 0;
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await step.sleep(`pause-${i}`, ROUND_PAUSE);
      sealed += await step.run(`seal-${i}`, () => sealAuditChain());
    }
    return { sealed };
  },
);
