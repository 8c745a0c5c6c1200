import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { approvals, notificationMessages, workspaces } from "../../../db/schema";
import { resetEnvCache } from "../../platform/config/env";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { startFakeSlack, type FakeSlack } from "../../../test/helpers/fake-slack";
import { startFakeChatWebhooks, type FakeChatWebhooks } from "../../../test/helpers/fake-chat-webhooks";
import { createApproval } from "../approvals/create-approval";
import { expireApproval } from "../approvals/approvals";
import { escalateApproval } from "../approvals/escalation";
import { createEndpoint } from "../webhooks/create-endpoint";
import { disableEndpointInTx } from "../webhooks/disable-endpoint";
import type { Actor } from "../../platform/actor";
import { createChannel } from "./channels";
import { createChannelInput } from "./schemas";
import { deliverNotification } from "./deliver-notification";

// The other causes of a message, each through its own code path: an approval that expires or
// escalates, and a webhook endpoint that is disabled.

let slack: FakeSlack;
let hooks: FakeChatWebhooks;
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  slack = await startFakeSlack({ channels: ["C0CAUSES01"] });
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

async function setup(types: string[]) {
  const { workspace } = await newWorkspace();
  const owner = await newMember(workspace.id, "owner");
  const agent = await newAgent(workspace.id);
  const { row: key } = await newKey(workspace.id, { agent_id: agent.id });
  const actor: Actor & { type: "key" } = { type: "key", workspaceId: workspace.id, keyId: key.id, agentId: agent.id };
  const ch = await createChannel(owner.member, createChannelInput.parse({ name: "ops", kind: "slack", secret: "xoxb-test-token", slack_channel_id: "C0CAUSES01", notification_types: types }));
  return { workspace, owner, actor, ch };
}
async function deliverQueued(channelId: string) {
  const db = await getDb();
  const rows = await db.select().from(notificationMessages).where(eq(notificationMessages.channelId, channelId)).orderBy(notificationMessages.id);
  for (const m of rows) if (m.status === "queued") await deliverNotification(m.id);
  return db.select().from(notificationMessages).where(eq(notificationMessages.channelId, channelId)).orderBy(notificationMessages.id);
}

describe("causes", () => {
  it("an expired request updates its Slack message to say it expired", async () => {
    const { actor, ch } = await setup(["approval.requested"]);
    const a = await createApproval(actor, { summary: "Will expire", evidence: {} });
    await deliverQueued(ch.id);
    const posted = slack.messagesIn("C0CAUSES01").find((m) => m.text.includes("Will expire"))!;
    const db = await getDb();
    await db.update(approvals).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(approvals.id, a.id));
    expect(await expireApproval(a.id)).toBe(true);
    const rows = await deliverQueued(ch.id);
    expect(rows.map((r) => [r.type, r.status])).toEqual([["approval.requested", "sent"], ["approval.resolved", "sent"]]);
    expect(posted.updates).toBe(1);
    expect(JSON.stringify(posted.blocks)).toContain("Expired without a decision");
  });

  it("an escalation posts a new message to a channel that takes escalations and marks the original escalated", async () => {
    const { workspace, actor, ch } = await setup(["approval.requested", "approval.escalated"]);
    const db = await getDb();
    await db.update(workspaces).set({ approvalEscalationSeconds: 60, approvalEscalationRole: "owner" }).where(eq(workspaces.id, workspace.id));
    const a = await createApproval(actor, { summary: "Waiting too long", evidence: {} });
    await deliverQueued(ch.id);
    await db.update(approvals).set({ createdAt: sql`now() - interval '2 minutes'` }).where(eq(approvals.id, a.id));
    expect(await escalateApproval(a.id)).toEqual({ escalated: true });
    await deliverQueued(ch.id);
    const about = slack.messagesIn("C0CAUSES01").filter((m) => m.text.includes("Waiting too long"));
    expect(about).toHaveLength(2);
    expect(about[0]!.updates).toBe(1);
    for (const m of about) expect(m.text).toContain("escalated");
  });

  it("a disabled webhook endpoint is told to the channel, again if it is disabled anew", async () => {
    const { workspace, ch } = await setup(["webhook_endpoint.disabled"]);
    const keyActor: Actor = { type: "operator", workspaceId: workspace.id, name: "test" };
    const endpoint = await createEndpoint(keyActor, { url: "https://hooks.example.test/agentdraft" });
    const disable = () => transaction((tx) => disableEndpointInTx(tx, { type: "system", workspaceId: workspace.id, job: "test" }, endpoint, "every attempt failed for 5 days", new Date()));
    await disable();
    let rows = await deliverQueued(ch.id);
    expect(rows.map((r) => [r.type, r.status, r.subjectId])).toEqual([["webhook_endpoint.disabled", "sent", endpoint.id]]);
    const text = slack.messagesIn("C0CAUSES01").at(-1)!.text;
    expect(text).toContain("hooks.example.test");
    await disable();
    rows = await deliverQueued(ch.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe("sent");
    expect(slack.messagesIn("C0CAUSES01").filter((m) => m.text.includes("hooks.example.test"))).toHaveLength(2);
  });
});
