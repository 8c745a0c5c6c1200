import { inngest } from "../client";
import { expireApprovals } from "../../lib/approvals/approvals";
import { notifyApprovers } from "../../lib/approvals/notify-approvers";
import { escalateApprovals } from "../../lib/approvals/escalation";

/** Every minute: mail owners and approvers about new approvals; escalate the long-pending; expire the overdue (with a signed receipt). */
export const expireApprovalsFunction = inngest.createFunction(
  { id: "expire-approvals", triggers: [{ cron: "* * * * *" }], concurrency: 1 },
  async ({ step }) => ({
    notified: await step.run("notify", () => notifyApprovers()),
    escalated: await step.run("escalate", () => escalateApprovals()),
    expired: await step.run("expire", () => expireApprovals()),
  }),
);
