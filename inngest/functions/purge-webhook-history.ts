import { inngest } from "../client";
import { purgeWebhookHistory } from "../../lib/webhooks/purge-webhook-history";

/** Hourly: deletes finished deliveries and delivered outbox events older than 30 days. */
export const purgeWebhookHistoryFn = inngest.createFunction(
  { id: "purge-webhook-history", triggers: [{ cron: "15 * * * *" }], concurrency: 1 },
  async ({ step }) => step.run("purge", () => purgeWebhookHistory()),
);
