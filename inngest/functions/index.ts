import { webhookFanOut } from "./webhook-fan-out";
import { webhookDeliveries } from "./webhook-deliveries";
import { purgeIdempotencyKeys } from "./purge-idempotency-keys";
import { purgeWebhookHistoryFn } from "./purge-webhook-history";

/** Every Inngest function, served at /api/inngest. Keep in step with lib/jobs/registry.ts. */
export const functions = [webhookFanOut, webhookDeliveries, purgeWebhookHistoryFn, purgeIdempotencyKeys];
