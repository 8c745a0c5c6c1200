import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { notificationMessages, webhookDeliveries } from "../../../db/schema";
import { resetEnvCache } from "../config/env";
import { capturedKinds, isPreviewDeployment } from "../config/preview";
import { emitEvent } from "../events/emit-event";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { startReceiver } from "../../../test/helpers/webhook-receiver";
import { startFakeResend } from "../../../test/helpers/fake-resend";
import { startFakeSlack, type FakeSlack } from "../../../test/helpers/fake-slack";
import { createEndpoint } from "../../domains/webhooks/create-endpoint";
import { deliverDueWebhooks } from "../../domains/webhooks/deliver";
import { configuredTransport, sendMail } from "../../domains/mail/send-mail";
import { createChannel } from "../../domains/notifications/channels";
import { createChannelInput } from "../../domains/notifications/schemas";
import { deliverNotification } from "../../domains/notifications/deliver-notification";
import { createApproval } from "../../domains/approvals/create-approval";
import { CAPTURED_NOTE, listCaptures } from "./captures";

// A preview deployment works on a copy of production's data (a Neon branch): its endpoints,
// channels and mail are real people's. It captures what it would send, unless told to send a kind.
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let resend: Awaited<ReturnType<typeof startFakeResend>>;
let slack: FakeSlack;
const VARS = ["VERCEL_ENV", "AGENTDRAFT_PREVIEW", "AGENTDRAFT_PREVIEW_SEND", "WEBHOOK_ALLOWED_HOSTS", "RESEND_API_KEY", "RESEND_BASE_URL", "SLACK_API_URL"] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
const setEnv = (vars: Partial<Record<(typeof VARS)[number], string>>) => {
  for (const [k, v] of Object.entries(vars)) process.env[k] = v;
  resetEnvCache();
};
const clearPreview = () => {
  for (const v of ["VERCEL_ENV", "AGENTDRAFT_PREVIEW", "AGENTDRAFT_PREVIEW_SEND"]) delete process.env[v];
  resetEnvCache();
};
beforeAll(async () => {
  receiver = await startReceiver();
  resend = await startFakeResend();
  slack = await startFakeSlack({ channels: ["C0APPROVALS"] });
  setEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32", RESEND_API_KEY: resend.apiKey, RESEND_BASE_URL: resend.url, SLACK_API_URL: slack.apiUrl });
});
afterEach(clearPreview);
afterAll(async () => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  resetEnvCache();
  await Promise.all([receiver.close(), resend.close(), slack.close()]);
});

describe("a preview deployment", () => {
  it("is VERCEL_ENV=preview, or AGENTDRAFT_PREVIEW=1 elsewhere; production captures nothing", () => {
    expect(isPreviewDeployment()).toBe(false);
    expect(capturedKinds()).toEqual([]);
    setEnv({ VERCEL_ENV: "production" });
    expect(isPreviewDeployment()).toBe(false);
    setEnv({ VERCEL_ENV: "preview" });
    expect(capturedKinds()).toEqual(["webhooks", "mail", "notifications", "calendar"]);
    clearPreview();
    setEnv({ AGENTDRAFT_PREVIEW: "1", AGENTDRAFT_PREVIEW_SEND: "mail, calendar" });
    expect(capturedKinds()).toEqual(["webhooks", "notifications"]);
  });

  it("captures signed webhooks (shown, never sent), and sends them when told to", async () => {
    setEnv({ VERCEL_ENV: "preview" });
    const { actor } = await newWorkspace();
    const endpoint = await createEndpoint(actor, { url: `${receiver.url}/hook` });
    receiver.received.length = 0;
    const event = await transaction((tx) => emitEvent(tx, actor, { type: "email.received", data: {} }));
    expect(await deliverDueWebhooks({ workspaceId: actor.workspaceId })).toMatchObject({ attempted: 1 });
    expect(receiver.received).toEqual([]);
    const [d] = await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(d).toMatchObject({ status: "succeeded", lastError: CAPTURED_NOTE, lastResponseStatus: null });
    expect(await listCaptures(actor.workspaceId)).toEqual([expect.objectContaining({ kind: "webhooks", target: `${receiver.url}/hook`, summary: { endpoint_id: endpoint.id, event_id: event.id, type: "email.received" } })]);

    setEnv({ AGENTDRAFT_PREVIEW_SEND: "webhooks" });
    await transaction((tx) => emitEvent(tx, actor, { type: "email.sent", data: {} }));
    await deliverDueWebhooks({ workspaceId: actor.workspaceId });
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(["email.sent"]);
  });

  it("captures mail even with Resend configured (kept on Captured mail), and sends it when told to", async () => {
    setEnv({ VERCEL_ENV: "preview" });
    const { workspace } = await newWorkspace();
    expect(configuredTransport()).toBeNull();
    const before = resend.sent.length;
    expect(await sendMail({ workspaceId: workspace.id, to: "someone@example.com", subject: "Invitation", text: "hi", kind: "test" })).toMatchObject({ status: "captured" });
    expect(resend.sent.length).toBe(before);
    setEnv({ AGENTDRAFT_PREVIEW_SEND: "mail" });
    expect(await sendMail({ workspaceId: workspace.id, to: "someone@example.com", subject: "Invitation", text: "hi", kind: "test" })).toMatchObject({ status: "sent" });
    expect(resend.sent.length).toBe(before + 1);
  });

  it("captures channel notices (never posted to Slack)", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const agent = await newAgent(workspace.id, "refund-bot");
    const { row: key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
    const ch = await createChannel(owner.member, createChannelInput.parse({ name: "ops", kind: "slack", secret: "xoxb-test-token", slack_channel_id: "C0APPROVALS", notification_types: ["approval.requested"], time_zone: "UTC" }));
    setEnv({ AGENTDRAFT_PREVIEW: "1" });
    await createApproval({ type: "key", workspaceId: workspace.id, keyId: key.id, agentId: agent.id }, { summary: "Refund order A-1", evidence: {} });
    const [m] = await (await getDb()).select().from(notificationMessages).where(eq(notificationMessages.channelId, ch.id));
    const posts = slack.calls.filter((c) => c.method === "chat.postMessage").length;
    expect(await deliverNotification(m!.id)).toMatchObject({ result: "skipped" });
    expect(slack.calls.filter((c) => c.method === "chat.postMessage").length).toBe(posts);
    const [after] = await (await getDb()).select().from(notificationMessages).where(eq(notificationMessages.id, m!.id));
    expect(after).toMatchObject({ status: "skipped", lastError: CAPTURED_NOTE });
    expect(await listCaptures(workspace.id)).toEqual([expect.objectContaining({ kind: "notifications", target: "slack: ops", summary: expect.objectContaining({ type: "approval.requested" }) })]);
  });
});
