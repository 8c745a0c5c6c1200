import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { notificationMessages } from "../../../db/schema";
import { resetEnvCache } from "../../platform/config/env";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { startFakeChatWebhooks, type FakeChatWebhooks } from "../../../test/helpers/fake-chat-webhooks";
import { startFakeSlack, type FakeSlack } from "../../../test/helpers/fake-slack";
import { createApproval } from "../approvals/create-approval";
import { enabledKinds } from "../../composition/job-kinds";
import { createEngine, type Engine } from "../../platform/jobs/engine";
import { acquireRunnerLock } from "../../platform/jobs/runner-lock";
import { setLocalEngine } from "../../platform/jobs/schedule";
import type { WorkKind } from "../../platform/jobs/work";
import type { Actor } from "../../platform/actor";
import { createChannel } from "./channels";
import { createChannelInput } from "./schemas";

// The embedded engine with the real registry: messages are announced after the commit that
// queued them and run at once, one run per channel at a time, so a channel whose webhook hangs
// holds only its own messages.

let slack: FakeSlack;
let hooks: FakeChatWebhooks;
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  slack = await startFakeSlack({ channels: ["C0FAST0001"] });
  hooks = await startFakeChatWebhooks();
  for (const [k, v] of Object.entries({ SLACK_API_URL: slack.apiUrl, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" })) {
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

const LEASE = `notify-isolation-${process.pid}`;
const mine = new Set<string>(["-"]);
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop(2_000);
  setLocalEngine(undefined);
  engine = undefined;
});
function startEngine() {
  const kinds: WorkKind[] = enabledKinds().map((k) => ({
    ...k,
    source: () => sql`select * from (${k.source()}) as own where own.workspace_id in (${sql.join([...mine].map((w) => sql`${w}`), sql`, `)})`,
  }));
  engine = createEngine({ kinds, crons: [], concurrency: 50, idlePollMs: 500, acquireLock: () => acquireRunnerLock({ name: LEASE }) });
  setLocalEngine(engine);
  engine.start();
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(25);
  }
}

describe("per-channel isolation", () => {
  it("a channel whose webhook hangs does not delay another channel's messages", async () => {
    const { workspace } = await newWorkspace();
    mine.add(workspace.id);
    const owner = await newMember(workspace.id, "owner");
    const agent = await newAgent(workspace.id);
    const { row: key } = await newKey(workspace.id, { agent_id: agent.id });
    const actor: Actor & { type: "key" } = { type: "key", workspaceId: workspace.id, keyId: key.id, agentId: agent.id };
    const base = { notification_types: ["approval.requested"], time_zone: "UTC" };
    hooks.hang("/api/webhooks/999/");
    const stuck = await createChannel(owner.member, createChannelInput.parse({ ...base, name: "stuck", kind: "discord", secret: hooks.discordUrl("999", "hang") }));
    const discord = await createChannel(owner.member, createChannelInput.parse({ ...base, name: "discord", kind: "discord", secret: hooks.discordUrl("222", "ok") }));
    const fast = await createChannel(owner.member, createChannelInput.parse({ ...base, name: "fast", kind: "slack", secret: "xoxb-test-token", slack_channel_id: "C0FAST0001" }));
    startEngine();

    await Promise.all(Array.from({ length: 6 }, (_, i) => createApproval(actor, { summary: `request ${i}`, evidence: {} })));
    await until(() => slack.messagesIn("C0FAST0001").length === 6 && hooks.discord.filter((m) => m.webhook === "222").length === 6);

    const db = await getDb();
    const stuckRows = await db.select().from(notificationMessages).where(eq(notificationMessages.channelId, stuck.id));
    expect(stuckRows).toHaveLength(6);
    // One attempt at a time for the hanging channel: at most one is leased (attempted), the rest wait their turn.
    expect(stuckRows.filter((r) => r.attempts > 0).length).toBeLessThanOrEqual(1);
    expect(stuckRows.every((r) => r.status === "queued")).toBe(true);
    // And that attempt has not ended: the others were all delivered while it still hung (its
    // provider gives up after 15 s, PROVIDER_TIMEOUT_MS, and records why), not after it.
    expect(stuckRows.map((r) => r.lastError)).toEqual(Array(6).fill(null));
    // Each message is marked sent just after its receiver answered: wait for the last marks.
    const statuses = async (id: string) => (await db.select().from(notificationMessages).where(eq(notificationMessages.channelId, id))).map((r) => r.status);
    await until(async () => (await statuses(discord.id)).every((s) => s === "sent") && (await statuses(fast.id)).every((s) => s === "sent"));
    for (const id of [discord.id, fast.id]) expect(await statuses(id)).toEqual(Array(6).fill("sent"));
  });
});
