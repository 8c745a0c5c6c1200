import { inngest } from "../client";
import { purgeExpiredIdempotencyKeys } from "../../lib/api/idempotency";

/** Hourly: deletes stored Idempotency-Key responses past their 24 hours. */
export const purgeIdempotencyKeys = inngest.createFunction(
  { id: "purge-idempotency-keys", triggers: [{ cron: "0 * * * *" }], concurrency: 1 },
  async ({ step }) => ({ purged: await step.run("purge", () => purgeExpiredIdempotencyKeys()) }),
);
