import { inngest } from "../client";
import { expireApprovals } from "../../lib/approvals/approvals";

/** Every minute: pending approvals past their expiry become expired, with a signed receipt. */
export const expireApprovalsFunction = inngest.createFunction(
  { id: "expire-approvals", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => ({ expired: await step.run("expire", () => expireApprovals()) }),
);
