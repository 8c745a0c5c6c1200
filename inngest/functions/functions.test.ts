import { beforeEach, describe, expect, it, vi } from "vitest";
import { InngestTestEngine } from "@inngest/test";

// The functions are thin wrappers: the lib functions they call are tested on a real database
// elsewhere. Here they are spies, so no job touches the database or the network.
const lib = vi.hoisted(() => ({
  fanOutEvents: vi.fn(async () => ({ events: 1, deliveries: 2 })),
  deliverDueWebhooks: vi.fn(async () => ({ attempted: 3, succeeded: 3 })),
  purgeExpiredIdempotencyKeys: vi.fn(async () => 4),
  purgeWebhookHistory: vi.fn(async () => ({ deliveries: 5, events: 6 })),
  expireHolds: vi.fn(async () => 7),
  expireApprovals: vi.fn(async () => 8),
  sealAuditChain: vi.fn(async () => 9),
  notifyApprovers: vi.fn(async () => 2),
  escalateApprovals: vi.fn(async () => 1),
  deliverOutboundMail: vi.fn(async () => ({ sent: 2, retried: 1, failed: 0 })),
  deliverSystemMail: vi.fn(async () => ({ sent: 1, retried: 0, failed: 1 })),
  syncDueLinks: vi.fn(async () => 3),
  runDueExports: vi.fn(async () => ({ attempted: 4, succeeded: 4 })),
  renewChannels: vi.fn(async () => 5),
}));
vi.mock("../../lib/webhooks/fan-out", () => ({ fanOutEvents: lib.fanOutEvents }));
vi.mock("../../lib/webhooks/deliver", () => ({ deliverDueWebhooks: lib.deliverDueWebhooks }));
vi.mock("../../lib/api/idempotency", () => ({ purgeExpiredIdempotencyKeys: lib.purgeExpiredIdempotencyKeys }));
vi.mock("../../lib/webhooks/purge-webhook-history", () => ({ purgeWebhookHistory: lib.purgeWebhookHistory }));
vi.mock("../../lib/holds/expire-holds", () => ({ expireHolds: lib.expireHolds }));
vi.mock("../../lib/approvals/approvals", () => ({ expireApprovals: lib.expireApprovals }));
vi.mock("../../lib/audit/seal-chain", () => ({ sealAuditChain: lib.sealAuditChain }));
vi.mock("../../lib/approvals/notify-approvers", () => ({ notifyApprovers: lib.notifyApprovers }));
vi.mock("../../lib/approvals/escalation", () => ({ escalateApprovals: lib.escalateApprovals }));
vi.mock("../../lib/mail/outbound/deliver-outbound", () => ({ deliverOutboundMail: lib.deliverOutboundMail }));
vi.mock("../../lib/mail/deliver-system-mail", () => ({ deliverSystemMail: lib.deliverSystemMail }));
vi.mock("../../lib/google/sync-calendar", () => ({ syncDueLinks: lib.syncDueLinks }));
vi.mock("../../lib/google/export-event", () => ({ runDueExports: lib.runDueExports }));
vi.mock("../../lib/google/push-channel", () => ({ renewChannels: lib.renewChannels }));

const { webhookFanOut } = await import("./webhook-fan-out");
const { webhookDeliveries } = await import("./webhook-deliveries");
const { purgeIdempotencyKeys } = await import("./purge-idempotency-keys");
const { purgeWebhookHistoryFn } = await import("./purge-webhook-history");
const { expireHoldsFunction } = await import("./expire-holds");
const { expireApprovalsFunction } = await import("./expire-approvals");
const { sealAuditChainFunction } = await import("./seal-audit-chain");
const { deliverOutboundMailFunction } = await import("./deliver-outbound-mail");
const { googleSyncFunction } = await import("./google-sync");
const { googleExportFunction } = await import("./google-export");
const { googleRenewChannelsFunction } = await import("./google-renew-channels");
const { functions } = await import("./index");
const { ROUNDS } = await import("./rounds");

// Sleeps are mocked (the engine would otherwise wait on them); a fresh engine per run.
const sleeps = Array.from({ length: ROUNDS - 1 }, (_, i) => ({ id: `pause-${i + 1}`, handler: () => undefined }));

beforeEach(() => vi.clearAllMocks());

describe("Inngest functions", () => {
  it("fan-out runs lib fanOutEvents once per round, pausing between rounds", async () => {
    const t = new InngestTestEngine({ function: webhookFanOut });
    const { result, ctx } = await t.execute({ steps: sleeps });
    expect(result).toEqual({ deliveries: 2 * ROUNDS });
    expect(lib.fanOutEvents).toHaveBeenCalledTimes(ROUNDS);
    expect(ctx.step.sleep).toHaveBeenCalledWith("pause-1", "10s");
  });

  it("deliveries runs lib deliverDueWebhooks once per round", async () => {
    const t = new InngestTestEngine({ function: webhookDeliveries });
    const { result } = await t.execute({ steps: sleeps });
    expect(result).toEqual({ attempted: 3 * ROUNDS });
    expect(lib.deliverDueWebhooks).toHaveBeenCalledTimes(ROUNDS);
  });

  it("purges expired idempotency keys hourly", async () => {
    const t = new InngestTestEngine({ function: purgeIdempotencyKeys });
    const { result } = await t.execute();
    expect(result).toEqual({ purged: 4 });
    expect(purgeIdempotencyKeys.opts.triggers).toEqual([{ cron: "0 * * * *" }]);
  });

  it("expires holds once per round, and approvals every minute", async () => {
    const holds = await new InngestTestEngine({ function: expireHoldsFunction }).execute({ steps: sleeps });
    expect(holds.result).toEqual({ expired: 7 * ROUNDS });
    expect(lib.expireHolds).toHaveBeenCalledTimes(ROUNDS);
    const approvals = await new InngestTestEngine({ function: expireApprovalsFunction }).execute();
    expect(approvals.result).toEqual({ notified: 2, escalated: 1, expired: 8 });
  });

  it("seals the audit chain once per round", async () => {
    const { result } = await new InngestTestEngine({ function: sealAuditChainFunction }).execute({ steps: sleeps });
    expect(result).toEqual({ sealed: 9 * ROUNDS });
  });

  it("delivers queued agent and system mail once per round, adding up the rounds", async () => {
    const { result } = await new InngestTestEngine({ function: deliverOutboundMailFunction }).execute({ steps: sleeps });
    expect(result).toEqual({ sent: 3 * ROUNDS, retried: ROUNDS, failed: ROUNDS });
    expect(lib.deliverOutboundMail).toHaveBeenCalledTimes(ROUNDS);
    expect(lib.deliverSystemMail).toHaveBeenCalledTimes(ROUNDS);
  });

  it("purges old webhook history", async () => {
    const { result } = await new InngestTestEngine({ function: purgeWebhookHistoryFn }).execute();
    expect(result).toEqual({ deliveries: 5, events: 6 });
  });

  it("syncs and exports Google calendars once per round, and renews push channels", async () => {
    const sync = await new InngestTestEngine({ function: googleSyncFunction }).execute({ steps: sleeps });
    expect(sync.result).toEqual({ synced: 3 * ROUNDS });
    expect(lib.syncDueLinks).toHaveBeenCalledTimes(ROUNDS);
    const exp = await new InngestTestEngine({ function: googleExportFunction }).execute({ steps: sleeps });
    expect(exp.result).toEqual({ attempted: 4 * ROUNDS });
    const renew = await new InngestTestEngine({ function: googleRenewChannelsFunction }).execute();
    expect(renew.result).toEqual({ renewed: 5 });
    expect(googleRenewChannelsFunction.opts.triggers).toEqual([{ cron: "*/15 * * * *" }]);
  });

  it("serves every function with a cron trigger", () => {
    expect(functions.map((f) => f.id())).toEqual([
      "seal-audit-chain",
      "webhook-fan-out",
      "webhook-deliveries",
      "purge-webhook-history",
      "purge-idempotency-keys",
      "expire-holds",
      "expire-approvals",
      "deliver-outbound-mail",
      "google-sync",
      "google-export",
      "google-renew-channels",
    ]);
    for (const f of functions) expect(f.opts.triggers).toEqual([{ cron: expect.any(String) }]);
  });
});
