import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { auditEntries, notificationChannels, notificationMessages, type MemberRow } from "../../../db/schema";
import { resetEnvCache } from "../../platform/config/env";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { startFakeSlack, type FakeSlack } from "../../../test/helpers/fake-slack";
import { startFakeChatWebhooks, type FakeChatWebhooks } from "../../../test/helpers/fake-chat-webhooks";
import { createApproval } from "../approvals/create-approval";
import { decideApproval } from "../approvals/decide-approval";
import type { Actor } from "../../platform/actor";
import { createChannel, setChannelEnabled } from "./channels";
import { createChannelInput } from "./schemas";
import { deliverNotification } from "./deliver-notification";
import { sendTestMessage } from "./test-channel";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { channelSchema } from "./schemas";

// Delivery through the real @slack/web-api WebClient to a local fake Slack, and real HTTP to
// local fake Teams and Discord webhooks; a real database. Each run is one attempt of one
// message, called directly with a clock where the schedule matters.

const { api } = serveApiForTests();
let slack: FakeSlack;
let hooks: FakeChatWebhooks;
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  slack = await startFakeSlack({ channels: ["C0APPROVALS", "C0OTHER01"], users: { "dana@team.test": "U0DANA" } });
  hooks = await startFakeChatWebhooks();
  for (const [k, v] of Object.entries({ SLACK_API_URL: slack.apiUrl, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", AUTH_URL: "https://app.agentdraft.test" })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  resetEnvCache();
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  resetEnvCache();
  await slack?.close();
  await hooks?.close();
});

const ALL_TYPES = ["approval.requested", "approval.escalated", "approval.resolved", "webhook_endpoint.disabled", "calendar.sync_failed"];

async function setup() {
  const { workspace } = await newWorkspace();
  const owner = await newMember(workspace.id, "owner");
  const agent = await newAgent(workspace.id, "refund-bot");
  const { row: key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
  const actor: Actor & { type: "key" } = { type: "key", workspaceId: workspace.id, keyId: key.id, agentId: agent.id };
  return { workspace, owner, agent, actor };
}

function channel(owner: MemberRow, fields: Record<string, unknown>) {
  return createChannel(owner, createChannelInput.parse({ name: "ops", notification_types: ALL_TYPES, time_zone: "UTC", ...fields }));
}
const slackChannel = (owner: MemberRow, extra: Record<string, unknown> = {}) => channel(owner, { kind: "slack", secret: "xoxb-test-token", slack_channel_id: "C0APPROVALS", ...extra });

async function messagesOf(channelId: string) {
  const db = await getDb();
  return db.select().from(notificationMessages).where(eq(notificationMessages.channelId, channelId)).orderBy(notificationMessages.id);
}
async function deliverAll(channelId: string, now?: Date) {
  const out = [];
  for (const m of await messagesOf(channelId)) if (m.status === "queued") out.push(await deliverNotification(m.id, { now }));
  return out;
}
const blockText = (blocks: unknown[]) => JSON.stringify(blocks);

/** The first whole minute after `after` at which the zone's clock reads `hhmm`. */
function nextLocalTime(zone: string, hhmm: string, after: Date): Date {
  const clock = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  for (let t = Math.ceil(after.getTime() / 60_000) * 60_000, n = 0; n < 2 * 1440; n++, t += 60_000) if (clock.format(new Date(t)) === hhmm) return new Date(t);
  throw new Error(`${zone} never reads ${hhmm} in the two days after ${after.toISOString()}`);
}

describe("Slack", () => {
  it("posts a request to the channel through the real WebClient (Block Kit, fallback text, link to the queue, no evidence), then updates that message when it is decided", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member);
    const approval = await createApproval(actor, { summary: "Refund order A-1", evidence: { card: "4242 4242 4242 4242", customer: "jane@example.com" }, action_class: "refund", amount: 120, currency: "EUR" });
    const [queued] = await messagesOf(ch.id);
    expect(queued).toMatchObject({ subjectId: approval.id, type: "approval.requested", status: "queued", recipient: "" });

    expect(await deliverNotification(queued!.id)).toMatchObject({ result: "sent" });
    const post = slack.calls.find((c) => c.method === "chat.postMessage")!;
    expect(post.token).toBe("xoxb-test-token");
    expect(post.contentType).toContain("application/x-www-form-urlencoded");
    const [msg] = slack.messagesIn("C0APPROVALS").slice(-1);
    expect(msg!.text).toContain("Refund order A-1");
    const blocks = blockText(msg!.blocks);
    expect(blocks).toContain("refund-bot");
    expect(blocks).toContain("refund · 120 EUR");
    expect(blocks).toContain("<https://app.agentdraft.test/approvals|");
    expect(blocks).toContain("cannot approve or deny");
    expect(blocks).not.toContain("4242");
    expect(blocks).not.toContain("jane@example.com");
    expect(blocks).not.toMatch(/"type":"(button|actions)"/);

    await decideApproval(owner.actor, approval.id, "deny", "Not this customer");
    const resolved = (await messagesOf(ch.id)).find((m) => m.type === "approval.resolved")!;
    expect(await deliverNotification(resolved.id)).toMatchObject({ result: "sent" });
    expect(msg!.updates).toBe(1);
    expect(slack.messagesIn("C0APPROVALS").filter((m) => m.ts === msg!.ts)).toHaveLength(1);
    expect(blockText(msg!.blocks)).toContain("Denied");
    expect(blockText(msg!.blocks)).toContain("Not this customer");
    const db = await getDb();
    const [row] = await db.select().from(notificationMessages).where(eq(notificationMessages.id, queued!.id));
    expect(row).toMatchObject({ status: "sent", providerChannel: "C0APPROVALS", providerRef: msg!.ts });
  });

  it("includes evidence only when the channel turns it on", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member, { include_evidence: "on", slack_channel_id: "C0OTHER01" });
    await createApproval(actor, { summary: "Evidence shown", evidence: { order: "Z-9" } });
    await deliverAll(ch.id);
    expect(blockText(slack.messagesIn("C0OTHER01").at(-1)!.blocks)).toContain("Z-9");
  });

  it("escapes mrkdwn so a summary cannot ping the channel or hide a link", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member);
    await createApproval(actor, { summary: "<!channel> pay <http://evil.test|the invoice> & <@U0DANA>", evidence: {} });
    await deliverAll(ch.id);
    const m = slack.messagesIn("C0APPROVALS").at(-1)!;
    const all = m.text + blockText(m.blocks);
    expect(all).not.toContain("<!channel>");
    expect(all).not.toContain("<http://evil.test|");
    expect(all).not.toContain("<@U0DANA>");
    expect(all).toContain("&lt;!channel&gt;");
  });

  it("messages each approver found by email, and updates those messages too", async () => {
    const { workspace, owner, actor } = await setup();
    const dana = await newMember(workspace.id, "approver", "dana@team.test");
    await newMember(workspace.id, "viewer", "dana-viewer@team.test");
    const ch = await slackChannel(owner.member, { dm_approvers: "on" });
    const approval = await createApproval(actor, { summary: "DM me", evidence: {} });
    const rows = await messagesOf(ch.id);
    expect(rows.map((r) => r.recipient).sort()).toEqual(["", dana.member.id, owner.member.id].sort());
    const outcomes = await deliverAll(ch.id);
    expect(outcomes.map((o) => o?.result).sort()).toEqual(["sent", "sent", "skipped"]); // the owner has no Slack user
    const dm = slack.messagesIn("D0DANA").at(-1)!;
    expect(dm.text).toContain("DM me");
    await decideApproval(dana.actor, approval.id, "approve", null);
    await deliverAll(ch.id);
    expect(dm.updates).toBe(1);
    expect(blockText(dm.blocks)).toContain("Approved");
  });

  it("honours Retry-After on a 429, then backs off on the webhook schedule, and marks and audits a channel that gives up", async () => {
    const { workspace, owner, actor } = await setup();
    const ch = await slackChannel(owner.member);
    await createApproval(actor, { summary: "Rate limited", evidence: {} });
    const [m] = await messagesOf(ch.id);
    slack.rateLimitNext(7);
    const t0 = new Date();
    const first = await deliverNotification(m!.id, { now: t0 });
    expect(first).toMatchObject({ result: "retried" });
    expect(first!.retryAt!.getTime() - t0.getTime()).toBeGreaterThanOrEqual(7000); // from the answer, a few ms after t0
    expect(first!.retryAt!.getTime() - t0.getTime()).toBeLessThan(12_000);
    expect(await deliverNotification(m!.id, { now: t0 })).toBeNull(); // not due yet

    slack.httpErrorNext(500);
    const t1 = first!.retryAt!;
    const second = await deliverNotification(m!.id, { now: t1 });
    expect(second!.retryAt!.getTime() - t1.getTime()).toBeGreaterThanOrEqual(270_000); // 5 min ± 10 %
    const db = await getDb();
    const [failing] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, ch.id));
    expect(failing!.failingSince).not.toBeNull();

    slack.failNext("channel_not_found"); // permanent: no more tries
    const third = await deliverNotification(m!.id, { now: new Date(t1.getTime() + 400_000) });
    expect(third).toMatchObject({ result: "failed" });
    const [failed] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, ch.id));
    expect(failed!.failedAt).not.toBeNull();
    expect(failed!.lastError).toContain("channel_not_found");
    const audits = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "notification_channel.failed")));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actorType: "system", resourceId: ch.id, outcome: "failed" });
  });

  it("counts Retry-After from the moment the answer arrives, not from the start of the attempt (issue #37)", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member);
    await createApproval(actor, { summary: "Slowly rate limited", evidence: {} });
    const [m] = await messagesOf(ch.id);
    slack.rateLimitNext(2, 1, 1500); // Slack takes 1.5 s to say "come back in 2 s"
    const t0 = new Date();
    const outcome = await deliverNotification(m!.id, { now: t0 });
    expect(outcome).toMatchObject({ result: "retried" });
    // No earlier than 2 s after the answer (which came at least 1.5 s after t0).
    expect(outcome!.retryAt!.getTime() - t0.getTime()).toBeGreaterThanOrEqual(3500);
    const [row] = await messagesOf(ch.id);
    expect(row!.nextAttemptAt!.getTime()).toBe(outcome!.retryAt!.getTime());
  });

  it("exactly once: two runners racing for the same message post it once", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member, { slack_channel_id: "C0OTHER01" });
    await createApproval(actor, { summary: "Race me", evidence: {} });
    const [m] = await messagesOf(ch.id);
    const before = slack.messagesIn("C0OTHER01").length;
    const results = await Promise.all(Array.from({ length: 8 }, () => deliverNotification(m!.id)));
    expect(results.filter((r) => r?.result === "sent")).toHaveLength(1);
    expect(results.filter((r) => r === null)).toHaveLength(7);
    expect(slack.messagesIn("C0OTHER01").length - before).toBe(1);
  });

  it("checks the token with auth.test when the channel is created", async () => {
    const { owner } = await setup();
    await expect(slackChannel(owner.member, { secret: "xoxb-wrong" })).rejects.toMatchObject({ code: "validation_failed", message: expect.stringContaining("invalid_auth") });
    await expect(slackChannel(owner.member, { secret: "not-a-token" })).rejects.toMatchObject({ code: "validation_failed" });
  });
});

describe("routing and quiet hours", () => {
  it("sends a request only to channels whose action classes and minimum amount it matches, and queuing twice adds nothing", async () => {
    const { owner, actor } = await setup();
    const refunds = await slackChannel(owner.member, { action_classes: "refund, payout", min_amount: "100" });
    const deploys = await slackChannel(owner.member, { action_classes: "deploy" });
    await createApproval(actor, { summary: "small", evidence: {}, action_class: "refund", amount: 50 });
    await createApproval(actor, { summary: "big", evidence: {}, action_class: "refund", amount: 500 });
    await createApproval(actor, { summary: "no amount", evidence: {}, action_class: "refund" });
    await createApproval(actor, { summary: "ship", evidence: {}, action_class: "deploy" });
    expect((await messagesOf(refunds.id)).length).toBe(1);
    expect((await messagesOf(deploys.id)).length).toBe(1);

    const { queueNotifications } = await import("./queue-notifications");
    const { transaction } = await import("../../../db/transaction");
    const [m] = await messagesOf(refunds.id);
    const again = await transaction((tx) => queueNotifications(tx, { workspaceId: refunds.workspaceId, type: "approval.requested", subject: m!.subjectId }));
    expect(again).toBe(0);
  });

  // The clock that judges the message is injected: the next 00:30 in Berlin after the message was
  // made (whatever the day, the season or the database's own clock), and the quiet hours end at
  // the 07:00 that follows it, in winter (UTC+1) or summer time (UTC+2) alike.
  it("holds a new message until the channel's quiet hours end, without counting an attempt", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member, { quiet_start: "22:00", quiet_end: "07:00", time_zone: "Europe/Berlin" });
    await createApproval(actor, { summary: "At night", evidence: {}, expires_in_seconds: 3 * 86_400 });
    const [m] = await messagesOf(ch.id);
    const night = nextLocalTime("Europe/Berlin", "00:30", new Date(Date.now() + 60_000));
    const end = nextLocalTime("Europe/Berlin", "07:00", night);
    const out = await deliverNotification(m!.id, { now: night });
    expect(out).toMatchObject({ result: "deferred" });
    expect(out!.retryAt!.toISOString()).toBe(end.toISOString());
    const [after] = await messagesOf(ch.id);
    expect(after).toMatchObject({ status: "queued", attempts: 0 });
    expect(after!.nextAttemptAt!.toISOString()).toBe(end.toISOString());
  });

  it("holds a disabled channel's messages and sends them when it is enabled again", async () => {
    const { owner, actor } = await setup();
    const ch = await slackChannel(owner.member, { slack_channel_id: "C0OTHER01" });
    await setChannelEnabled(owner.member, ch.id, false);
    // A disabled channel is not routed to at all; one queued before it was disabled waits.
    await setChannelEnabled(owner.member, ch.id, true);
    await createApproval(actor, { summary: "while on", evidence: {} });
    await setChannelEnabled(owner.member, ch.id, false);
    const [m] = await messagesOf(ch.id);
    expect(await deliverNotification(m!.id)).toBeNull();
    await setChannelEnabled(owner.member, ch.id, true);
    expect(await deliverNotification(m!.id)).toMatchObject({ result: "sent" });
  });
});

describe("Teams and Discord incoming webhooks", () => {
  it("Teams: an Adaptive Card with escaped markdown, a new card on the decision", async () => {
    const { owner, actor } = await setup();
    const ch = await channel(owner.member, { kind: "teams", secret: hooks.teamsUrl("ops") });
    const approval = await createApproval(actor, { summary: "[x](http://evil.test) @everyone **now**", evidence: { secret: "s3cr3t" } });
    await deliverAll(ch.id);
    const card = hooks.teams.at(-1)!;
    expect(card.hook).toBe("ops");
    expect(card.body.attachments![0]!.contentType).toBe("application/vnd.microsoft.card.adaptive");
    const content = JSON.stringify(card.body.attachments![0]!.content);
    expect(content).toContain('"type":"AdaptiveCard"');
    expect(content).toContain("Action.OpenUrl");
    expect(content).not.toContain("[x](http://evil.test)");
    expect(content).not.toContain("@everyone");
    expect(content).not.toContain("s3cr3t");
    await decideApproval(owner.actor, approval.id, "approve", null);
    await deliverAll(ch.id);
    expect(JSON.stringify(hooks.teams.at(-1)!.body)).toContain("Approved");
  });

  it("Discord: an embed posted with ?wait=true, no mentions parsed, then the same message edited by PATCH", async () => {
    const { owner, actor } = await setup();
    const ch = await channel(owner.member, { kind: "discord", secret: hooks.discordUrl("555", "abc") });
    const approval = await createApproval(actor, { summary: "[click](http://evil.test) @everyone <@123> *x*", evidence: {} });
    await deliverAll(ch.id);
    const msg = hooks.discord.at(-1)!;
    expect(msg.body.allowed_mentions).toEqual({ parse: [] });
    const embed = (msg.body.embeds as { description: string; url: string }[])[0]!;
    expect(embed.description).not.toContain("[click](http://evil.test)");
    expect(embed.description).toContain("\\[click\\](http://evil.test)");
    expect(embed.description).not.toMatch(/@everyone/);
    expect(embed.description).not.toContain("<@123>");
    expect(embed.url).toBe("https://app.agentdraft.test/approvals");
    const [row] = await messagesOf(ch.id);
    expect(row!.providerRef).toBe(msg.id);
    await decideApproval(owner.actor, approval.id, "deny", "no");
    await deliverAll(ch.id);
    expect(msg.edits).toHaveLength(1);
    expect(JSON.stringify(msg.edits[0])).toContain("Denied");
  });

  it("refuses a webhook URL inside the network unless the operator allows it", async () => {
    const { owner } = await setup();
    await expect(channel(owner.member, { kind: "discord", secret: "http://10.0.0.8/api/webhooks/1/x" })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(channel(owner.member, { kind: "discord", secret: "https://discord.com/not-a-webhook" })).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("a test message reaches the channel and is audited", async () => {
    const { workspace, owner } = await setup();
    const ch = await channel(owner.member, { kind: "discord", secret: hooks.discordUrl("777", "t") });
    expect(await sendTestMessage(owner.member, ch.id)).toEqual({ ok: true });
    expect(JSON.stringify(hooks.discord.at(-1)!.body)).toContain("Test message from AgentDraft");
    const db = await getDb();
    const rows = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), sql`${auditEntries.action} like 'notification_channel.%'`));
    expect(rows.map((r) => r.action).sort()).toEqual(["notification_channel.created", "notification_channel.tested"]);
    expect(JSON.stringify(rows)).not.toContain("/api/webhooks/777/t");
  });
});

describe("GET /v1/notification-channels", () => {
  it("lists the workspace's channels with their rules and health, never a secret, and nothing of another workspace", async () => {
    const { workspace, owner } = await setup();
    const ch = await channel(owner.member, { kind: "discord", secret: hooks.discordUrl("31337", "very-secret-token"), action_classes: "refund", min_amount: "10", quiet_start: "22:00", quiet_end: "06:30", time_zone: "Europe/Paris" });
    const { key } = await newKey(workspace.id, { scopes: ["approvals"] });
    const res = await api("/api/v1/notification-channels", { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(1);
    expect(channelSchema.strict().parse(res.json.data[0])).toMatchObject({
      id: ch.id, kind: "discord", action_classes: ["refund"], min_amount: 10, quiet_hours: { start: "22:00", end: "06:30", time_zone: "Europe/Paris" }, include_evidence: false, status: "healthy",
    });
    expect(JSON.stringify(res.json)).not.toContain("very-secret-token");
    const other = await newWorkspace();
    const { key: otherKey } = await newKey(other.workspace.id, {});
    expect((await api("/api/v1/notification-channels", { key: otherKey })).json.data).toEqual([]);
    const { key: mailKey } = await newKey(workspace.id, { scopes: ["mail"] });
    expect((await api("/api/v1/notification-channels", { key: mailKey })).status).toBe(403);
  });
});
