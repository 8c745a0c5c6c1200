import { fanOutEvents } from "../webhooks/fan-out";
import { deliverDueWebhooks } from "../webhooks/deliver";
import { purgeWebhookHistory } from "../webhooks/purge-webhook-history";
import { purgeExpiredIdempotencyKeys } from "../api/idempotency";
import { expireHolds } from "../holds/expire-holds";
import { expireApprovals } from "../approvals/approvals";
import { notifyApprovers } from "../approvals/notify-approvers";
import { escalateApprovals } from "../approvals/escalation";
import { sealAuditChain } from "../audit/seal-chain";
import { deliverOutboundMail } from "../mail/outbound/deliver-outbound";
import { deliverSystemMail } from "../mail/deliver-system-mail";
import { syncDueLinks } from "../google/sync-calendar";
import { runDueExports } from "../google/export-event";
import { renewChannels } from "../google/push-channel";

/**
 * A background job: an idempotent function in lib/ (the database is the source of truth),
 * safe to run concurrently with itself, and how often the embedded runner calls it.
 * Inngest runs the same functions from inngest/functions/.
 */
export type Job = { name: string; intervalMs: number; run: () => Promise<unknown> };

/** Every background job. Other features add theirs here (and an Inngest function beside them). */
export const JOBS: Job[] = [
  // Chains appended audit entries in commit order (lib/audit/seal-chain.ts); reads seal first too.
  { name: "audit.seal", intervalMs: 1_000, run: () => sealAuditChain() },
  { name: "webhooks.fan-out", intervalMs: 1_000, run: () => fanOutEvents() },
  { name: "webhooks.deliver", intervalMs: 1_000, run: () => deliverDueWebhooks() },
  { name: "webhooks.purge-history", intervalMs: 60 * 60 * 1_000, run: () => purgeWebhookHistory() },
  { name: "idempotency.purge", intervalMs: 60 * 60 * 1_000, run: () => purgeExpiredIdempotencyKeys() },
  // Liveness never waits for these (it is checked against the clock); they record expiry and tell the agent.
  { name: "holds.expire", intervalMs: 1_000, run: () => expireHolds() },
  { name: "approvals.expire", intervalMs: 5_000, run: () => expireApprovals() },
  { name: "approvals.notify", intervalMs: 2_000, run: () => notifyApprovers() },
  { name: "approvals.escalate", intervalMs: 5_000, run: () => escalateApprovals() },
  // Queued agent and system mail to Resend (only when RESEND_API_KEY is set; otherwise mail is captured at once).
  { name: "mail.deliver", intervalMs: 1_000, run: async () => ({ agents: await deliverOutboundMail(), system: await deliverSystemMail() }) },
  // Google Calendar (no-ops without GOOGLE_CLIENT_ID): import due links, export commits and cancels, keep push channels open.
  { name: "google.sync", intervalMs: 2_000, run: () => syncDueLinks() },
  { name: "google.export", intervalMs: 2_000, run: () => runDueExports() },
  { name: "google.renew-channels", intervalMs: 15 * 60 * 1_000, run: () => renewChannels() },
];
