import { webhookFanOut } from "./webhook-fan-out";
import { webhookDeliveries } from "./webhook-deliveries";
import { purgeIdempotencyKeys } from "./purge-idempotency-keys";
import { purgeWebhookHistoryFn } from "./purge-webhook-history";
import { expireHoldsFunction } from "./expire-holds";
import { expireApprovalsFunction } from "./expire-approvals";
import { sealAuditChainFunction } from "./seal-audit-chain";
import { deliverOutboundMailFunction } from "./deliver-outbound-mail";
import { googleSyncFunction } from "./google-sync";
import { googleExportFunction } from "./google-export";
import { googleRenewChannelsFunction } from "./google-renew-channels";

/** Every Inngest function, served at /api/inngest. Keep in step with lib/jobs/registry.ts. */
export const functions = [sealAuditChainFunction, webhookFanOut, webhookDeliveries, purgeWebhookHistoryFn, purgeIdempotencyKeys, expireHoldsFunction, expireApprovalsFunction, deliverOutboundMailFunction, googleSyncFunction, googleExportFunction, googleRenewChannelsFunction];
