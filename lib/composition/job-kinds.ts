import { deliverWebhook, pendingDeliveriesSource } from "../domains/webhooks/deliver";
import { fanOutEvent, unfannedEventsSource } from "../domains/webhooks/fan-out";
import { DELIVERY_KIND } from "../platform/events/outbox";
import { purgeWebhookHistory } from "../domains/webhooks/purge-webhook-history";
import { purgeExpiredIdempotencyKeys } from "../platform/api/idempotency";
import { expireHold, heldHoldsSource, HOLD_EXPIRY_KIND } from "../domains/holds/expire-holds";
import { APPROVAL_EXPIRY_KIND, expireApproval, pendingApprovalsSource } from "../domains/approvals/approvals";
import { APPROVAL_NOTIFY_KIND, notifyApproval, unnotifiedApprovalsSource } from "../domains/approvals/notify-approvers";
import { APPROVAL_ESCALATE_KIND, escalateApproval, escalationSource } from "../domains/approvals/escalation";
import { sealAuditWork, SEAL_DEBOUNCE_MS, SEAL_KIND, unsealedSource } from "../platform/audit/seal-chain";
import { CHECKPOINT_KIND, checkpointSource, signCheckpoint } from "../platform/audit/checkpoints";
import { deliverMessage, MESSAGE_DELIVERY_KIND, queuedMessagesSource } from "../domains/mail/outbound/deliver-outbound";
import { deliverSystemMailItem, queuedSystemMailSource } from "../domains/mail/deliver-system-mail";
import { configuredTransport, SYSTEM_MAIL_KIND } from "../domains/mail/send-mail";
import { checkDomain, DOMAIN_CHECK_KIND, pendingDomainsSource } from "../domains/mail/mail-domains";
import { domainProvider } from "../domains/mail/resend-domains";
import { googleConfig } from "../domains/calendar-sync/google/config";
import { dueLinksSource, EXPORT_KIND, pendingExportsSource, SYNC_KIND } from "../domains/calendar-sync/google/work-sources";
import { microsoftConfig } from "../domains/calendar-sync/microsoft/config";
import {
  MICROSOFT_EXPORT_KIND,
  MICROSOFT_RENEW_KIND,
  MICROSOFT_SYNC_KIND,
  microsoftDueLinksSource,
  microsoftPendingExportsSource,
  subscriptionRenewalSource,
} from "../domains/calendar-sync/microsoft/work-sources";
import { DRIFT_KIND, driftDueSource } from "../domains/calendar-sync/drift-source";
import { NOTIFICATION_DELIVERY_KIND, queuedNotificationsSource } from "../domains/notifications/queue-notifications";
import { claimedHandoffsSource, deadlineHandoffsSource, HANDOFF_CLAIM_EXPIRY_KIND, HANDOFF_EXPIRY_KIND, settleHandoff } from "../domains/handoffs/handoff-clock";
import { activeLeasesSource, expireLease, LEASE_EXPIRY_KIND } from "../domains/leases/expire-leases";
import type { CronJob, WorkKind } from "../platform/jobs/work";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const mailConfigured = () => configuredTransport() !== null;
const googleConfigured = () => googleConfig() !== null;
const microsoftConfigured = () => microsoftConfig() !== null;

/**
 * Every kind of background work, defined once (SPEC §7): one item per run, limits per workspace
 * (and per endpoint or connection), each its own retry schedule. The embedded engine and the
 * Inngest functions are both built from this list. Google's code is loaded only when a Google
 * item runs, so a cold start never pays for the Google client libraries.
 */
export const WORK_KINDS: WorkKind[] = [
  {
    name: DELIVERY_KIND,
    source: pendingDeliveriesSource,
    run: async (item) => {
      const r = await deliverWebhook(item.id);
      return r ? { result: r.outcome.kind, retryAt: r.retryAt } : { result: "nothing to do" };
    },
    // A hanging endpoint holds at most perKey runs; the rest of its workspace and every other one go on.
    limits: { perWorkspace: 24, perKey: 16, timeoutMs: 90 * SECOND }, // above any WEBHOOK_TIMEOUT_MS (at most 60 s)
    doc: { run: "one attempt of one event to one endpoint", due: "at commit, then on the retry schedule (5 s … 10 h, 8 attempts)", key: "endpoint" },
  },
  { name: "webhook.fan-out", source: unfannedEventsSource, run: (item) => fanOutEvent(item.id), limits: { perWorkspace: 4, timeoutMs: 30 * SECOND }, doc: { run: "deliveries for an event written without them (an older version's outbox)", due: "normally never" } },
  {
    name: HOLD_EXPIRY_KIND,
    source: heldHoldsSource,
    run: async (item) => ({ expired: await expireHold(item.id) }),
    limits: { perWorkspace: 8, timeoutMs: 30 * SECOND },
    doc: { run: "one hold: marked `expired`, `hold.expired` sent", due: "a timer at `expires_at` (an extend moves it; commit, release and preemption cancel it)" },
    cancellable: true,
  },
  { name: APPROVAL_NOTIFY_KIND, source: unnotifiedApprovalsSource, run: async (item) => ({ notified: await notifyApproval(item.id) }), limits: { perWorkspace: 4, timeoutMs: 30 * SECOND }, doc: { run: "the notice of one new approval (chunked: 50 recipients a mail)", due: "at commit" } },
  { name: APPROVAL_EXPIRY_KIND, source: pendingApprovalsSource, run: async (item) => ({ expired: await expireApproval(item.id) }), limits: { perWorkspace: 4, timeoutMs: 30 * SECOND }, doc: { run: "one approval: `expired`, receipt, `approval.resolved`", due: "a timer at `expires_at`" } },
  { name: APPROVAL_ESCALATE_KIND, source: escalationSource, run: (item) => escalateApproval(item.id), limits: { perWorkspace: 4, timeoutMs: 30 * SECOND }, doc: { run: "one long-pending approval mailed to the escalation role", due: "a timer at `created_at` + the workspace's delay" } },
  { name: SEAL_KIND, source: unsealedSource, run: (item) => sealAuditWork(item.workspaceId), limits: { perWorkspace: 1, timeoutMs: MINUTE }, debounceMs: SEAL_DEBOUNCE_MS, doc: { run: "chaining what was appended to one workspace's audit trail", due: "debounced: 1 s after the first append of a burst in that workspace" } },
  // Signs a workspace's chain head: due an interval after its last checkpoint once the head moved (none while idle).
  { name: CHECKPOINT_KIND, source: checkpointSource, run: async (item) => ({ signed: (await signCheckpoint(item.workspaceId))?.seq ?? null }), limits: { perWorkspace: 1, timeoutMs: MINUTE }, doc: { run: "signing one workspace's chain head", due: "when its head first moves past its last checkpoint, then at most every 5 min; never while idle" } },
  {
    name: MESSAGE_DELIVERY_KIND,
    source: queuedMessagesSource,
    run: async (item) => (await deliverMessage(item.id)) ?? { result: "nothing to do" },
    limits: { perWorkspace: 4, perKey: 2, timeoutMs: 2 * MINUTE },
    doc: { run: "one queued message of an agent handed to Resend", due: "at commit, then retries (5 s, 5 min, 30 min … 8 attempts)", key: "inbox", only: "with `RESEND_API_KEY`" },
    enabled: mailConfigured,
  },
  {
    name: SYSTEM_MAIL_KIND,
    source: queuedSystemMailSource,
    run: async (item) => (await deliverSystemMailItem(item.id)) ?? { result: "nothing to do" },
    limits: { perWorkspace: 4, timeoutMs: 2 * MINUTE },
    doc: { run: "one queued system mail (invitation, approval notice or escalation, disabled endpoint) handed to Resend", due: "at commit, then retries on the webhook schedule", only: "with `RESEND_API_KEY`" },
    enabled: mailConfigured,
  },
  {
    // A timer per pending domain on a backoff (1 min, 5 min, 30 min, 2 h, 6 h, then 12 h): none once it is verified or failed, nor past 72 h.
    name: DOMAIN_CHECK_KIND,
    source: pendingDomainsSource,
    run: async (item) => (await checkDomain(item.id)) ?? { result: "nothing to do" },
    limits: { perWorkspace: 2, timeoutMs: MINUTE },
    doc: { run: "one pending workspace domain checked at Resend (verify, then its records' states read back)", due: "a timer after it is added or verified on demand: 1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h; none once verified or failed, and it fails 72 h into a round", only: "with `RESEND_API_KEY`" },
    enabled: () => domainProvider() !== null,
  },
  {
    name: SYNC_KIND,
    source: dueLinksSource,
    run: async (item) => (await import("../domains/calendar-sync/google/sync-calendar")).syncLinkWork(item.id),
    // One run per Google connection at a time: its quota backoff sleeps only in its own run.
    limits: { perWorkspace: 4, perKey: 1, timeoutMs: 5 * MINUTE },
    doc: { run: "one linked Google calendar synced", due: "a push notification, linking, \"Sync now\", the periodic resync (`GOOGLE_SYNC_INTERVAL_SECONDS`), retries", key: "Google connection", only: "when Google is configured" },
    enabled: googleConfigured,
  },
  {
    name: EXPORT_KIND,
    source: pendingExportsSource,
    run: async (item) => (await (await import("../domains/calendar-sync/google/export-event")).runExport(item.id)) ?? { result: "nothing to do" },
    limits: { perWorkspace: 4, perKey: 2, timeoutMs: 5 * MINUTE },
    doc: { run: "one export: the event created (or removed) at Google", due: "at commit or cancel, then retries (5 s, 15 s, 45 s … 8 attempts)", key: "linked calendar", only: "when Google is configured" },
    enabled: googleConfigured,
  },
  // Microsoft 365 / Outlook: the same engine (lib/domains/calendar-sync), its own kinds so one provider's throttling never holds the other's work.
  {
    name: MICROSOFT_SYNC_KIND,
    source: microsoftDueLinksSource,
    run: async (item) => (await import("../domains/calendar-sync/sync-link")).syncLinkWork(item.id),
    limits: { perWorkspace: 4, perKey: 1, timeoutMs: 5 * MINUTE },
    doc: { run: "one linked Outlook calendar synced", due: "a change notification, linking, \"Sync now\", the periodic resync (`MICROSOFT_SYNC_INTERVAL_SECONDS`), retries", key: "Microsoft connection", only: "when Microsoft is configured" },
    enabled: microsoftConfigured,
  },
  {
    name: MICROSOFT_EXPORT_KIND,
    source: microsoftPendingExportsSource,
    run: async (item) => (await (await import("../domains/calendar-sync/microsoft/calendar-sync")).runMicrosoftExport(item.id)) ?? { result: "nothing to do" },
    limits: { perWorkspace: 4, perKey: 2, timeoutMs: 5 * MINUTE },
    doc: { run: "one export: the event created (or removed) in Outlook", due: "at commit or cancel, then retries", key: "linked calendar", only: "when Microsoft is configured" },
    enabled: microsoftConfigured,
  },
  {
    // A timer per subscription, due a margin before it expires (and at once on reauthorizationRequired): no clock ticks.
    name: MICROSOFT_RENEW_KIND,
    source: subscriptionRenewalSource,
    run: async (item) => (await import("../domains/calendar-sync/microsoft/notifications")).renewSubscription(item.id),
    limits: { perWorkspace: 2, perKey: 1, timeoutMs: 2 * MINUTE },
    doc: { run: "one Graph subscription renewed", due: "a timer 12 h before it expires (at once on `reauthorizationRequired`)", key: "Microsoft connection", only: "when Microsoft is configured" },
    enabled: microsoftConfigured,
  },
  {
    // Event-driven: a full resync or a recovery asks for it; then a day after each check, only while the link has committed events ahead.
    name: DRIFT_KIND,
    source: driftDueSource,
    run: async (item) => (await import("../domains/calendar-sync/drift")).checkDriftWork(item.id),
    limits: { perWorkspace: 2, perKey: 1, timeoutMs: 5 * MINUTE },
    doc: {
      run: "one linked calendar's drift check: AgentDraft's exports compared with the provider's events; a lost copy re-created, an orphan reported",
      due: "after a full resync (410) and after a recovery from failed syncs, then a day after each check while the link has committed events ahead; never for an idle link",
      key: "linked calendar",
      only: "when Google or Microsoft is configured",
    },
    enabled: () => googleConfigured() || microsoftConfigured(),
  },
  {
    name: NOTIFICATION_DELIVERY_KIND,
    source: queuedNotificationsSource,
    run: async (item) => (await (await import("../domains/notifications/deliver-notification")).deliverNotification(item.id)) ?? { result: "nothing to do" },
    // One run per channel at a time: a hanging or rate-limited channel (Slack limits per channel) holds only its own messages.
    limits: { perWorkspace: 8, perKey: 1, timeoutMs: 2 * MINUTE },
    doc: { run: "one message to one Slack, Teams or Discord channel", due: "at commit, then the webhook retry schedule (the app's `Retry-After` respected)", key: "channel" },
  },
  // A handoff's lapsed claim (pending again, or dead) and its deadline (expired): timers at their due times.
  { name: HANDOFF_CLAIM_EXPIRY_KIND, source: claimedHandoffsSource, run: async (item) => ({ settled: await settleHandoff(item.id) }), limits: { perWorkspace: 8, timeoutMs: 30 * SECOND }, cancellable: true, doc: { run: "one lapsed claim: the handoff pending again (`handoff.received` once more) or, with no attempts left, `dead`", due: "a timer at `claim_expires_at` (a heartbeat moves it; complete and fail cancel it)" } },
  { name: HANDOFF_EXPIRY_KIND, source: deadlineHandoffsSource, run: async (item) => ({ settled: await settleHandoff(item.id) }), limits: { perWorkspace: 8, timeoutMs: 30 * SECOND }, cancellable: true, doc: { run: "one handoff past its deadline: `expired`, `handoff.expired` to the sender", due: "a timer at `expires_at`" } },
  {
    name: LEASE_EXPIRY_KIND,
    source: activeLeasesSource,
    run: async (item) => ({ expired: await expireLease(item.id) }),
    limits: { perWorkspace: 8, timeoutMs: 30 * SECOND },
    doc: { run: "one lease past its TTL: `expired`, `lease.expired` sent", due: "a timer at `expires_at` (a renewal moves it; release cancels it)" },
    cancellable: true,
  },
];

/** Housekeeping on a clock: never more often than every 5 minutes. */
export const CRON_JOBS: CronJob[] = [
  { name: "webhooks.purge-history", cron: "15 * * * *", everyMs: 60 * MINUTE, run: () => purgeWebhookHistory(), doc: "deletes webhook deliveries and events past their 30 days" },
  { name: "idempotency.purge", cron: "0 * * * *", everyMs: 60 * MINUTE, run: () => purgeExpiredIdempotencyKeys(), doc: "deletes stored `Idempotency-Key` responses past their 24 hours" },
  {
    name: "google.renew-channels",
    cron: "*/15 * * * *",
    everyMs: 15 * MINUTE,
    run: async () => (await import("../domains/calendar-sync/google/channels")).renewChannels(),
    enabled: googleConfigured,
    whileIdle: true,
    doc: "renews Google push channels a day before they expire (only when Google is configured)",
  },
];

/** The kinds that run in this deployment. */
export const enabledKinds = () => WORK_KINDS.filter((k) => k.enabled?.() ?? true);
export const enabledCrons = () => CRON_JOBS.filter((c) => c.enabled?.() ?? true);
export const kindNamed = (name: string) => WORK_KINDS.find((k) => k.name === name);
