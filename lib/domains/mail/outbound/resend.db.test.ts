import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["team.test"];
import { composeMime } from "../../../../test/helpers/mime";
import { newResendWebhookSecret, signedResendWebhook, startFakeResend } from "../../../../test/helpers/fake-resend";
import { getDb } from "../../../../db/client";
import { resetEnvCache } from "../../../platform/config/env";
import { auditEntries, messages, webhookEvents } from "../../../../db/schema";
import { deliverOutboundMail } from "./deliver-outbound";
import { configuredTransport, type MailTransport } from "../send-mail";

// Resend configured, pointed at a local fake that speaks its HTTP API; the real `resend` client talks to it.
let fake: Awaited<ReturnType<typeof startFakeResend>>;
const WEBHOOK_SECRET = newResendWebhookSecret();
const vars = {
  RESEND_API_KEY: "re_test_key",
  RESEND_BASE_URL: "http://127.0.0.1:9",
  RESEND_WEBHOOK_SECRET: WEBHOOK_SECRET,
  AGENTDRAFT_MAIL_DOMAIN: "agents.test",
  MAIL_MAX_BYTES: "200000",
  API_RATE_LIMIT_BURST: "100000",
  API_RATE_LIMIT_PER_SECOND: "100000",
};
beforeAll(async () => {
  fake = await startFakeResend({ apiKey: vars.RESEND_API_KEY });
  vars.RESEND_BASE_URL = fake.url;
});
afterAll(() => fake?.close());
setTestEnv(vars);
const { api } = serveApiForTests();

const setup = (username?: string) => newAgentInbox(api, username, CORRESPONDENTS);

const send = async (key: string, inboxId: string, subject = "Hello") => {
  const res = await api(`/api/v1/inboxes/${inboxId}/messages`, { key, body: { to: ["bob@team.test"], subject, text: "Hi Bob" }, headers: { "x-trace-id": `trace-${subject}` } });
  expect(res.status).toBe(201);
  return res.json as { id: string; status: string; message_id: string };
};

const row = async (id: string) => (await (await getDb()).select().from(messages).where(eq(messages.id, id)))[0]!;
/** Makes queued messages due now (the retry schedule would otherwise wait seconds to hours). */
const makeDue = async (ids: string[]) => (await getDb()).update(messages).set({ nextSendAt: sql`now()` }).where(inArray(messages.id, ids));

const postWebhook = (event: Parameters<typeof signedResendWebhook>[1], secret = WEBHOOK_SECRET) => {
  const { body, headers } = signedResendWebhook(secret, event);
  return api("/api/inbound/resend", { method: "POST", rawBody: body, headers });
};

describe("sending through Resend", () => {
  it("held mail to an outside and a local recipient, approved: the local inbox has it at once, Resend gets only the outside one, email.sent names the approval", async () => {
    const { newAgent, newKey, newMember } = await import("../../../../test/helpers/fixtures");
    const { decideApproval } = await import("../../approvals/decide-approval");
    const { inbox, agent, workspace } = await setup();
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
    const desk = await newAgent(workspace.id, "desk");
    const { key: deskKey } = await newKey(workspace.id, { agent_id: desk.id, scopes: ["mail"] });
    const local = (await api("/api/v1/inboxes", { key: deskKey, body: { username: `desk-${Date.now().toString(36)}` } })).json as { id: string; address: string };
    const approver = await newMember(workspace.id, "approver");
    const held = (await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@team.test"], cc: [local.address], subject: "Both sides", text: "Hi both", require_approval: true } })).json;
    await decideApproval(approver.actor, held.approval_id, "approve");
    expect((await row(held.id)).status).toBe("queued");
    const arrived = (await api(`/api/v1/inboxes/${local.id}/messages`, { key: deskKey })).json.data;
    expect(arrived.map((m: { message_id: string; direction: string }) => [m.direction, m.message_id])).toEqual([["inbound", held.message_id]]);
    const before = fake.sent.length;
    await makeDue([held.id]);
    expect((await deliverOutboundMail()).sent).toBeGreaterThanOrEqual(1);
    const wire = fake.sent.slice(before).filter((w) => (w.body as { subject?: string }).subject === "Both sides");
    expect(wire).toHaveLength(1);
    expect(wire[0]!.body).toMatchObject({ to: ["bob@team.test"] });
    expect(JSON.stringify(wire[0]!.body)).not.toContain(local.address);
    const [sent] = await (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.sent")));
    expect(sent!.data).toMatchObject({ approval_id: held.approval_id, message: { id: held.id } });
  });

  it("held mail, once approved, is queued and handed to Resend as composed; denied, Resend never sees it", async () => {
    const { newKey, newMember } = await import("../../../../test/helpers/fixtures");
    const { decideApproval } = await import("../../approvals/decide-approval");
    const { inbox, agent, workspace } = await setup();
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
    const approver = await newMember(workspace.id, "approver");
    const hold = (subject: string) => api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@team.test"], subject, text: "Hi Bob", html: "<p>Hi</p>", require_approval: true } });
    const held = await hold("Approved one");
    expect(held.status).toBe(202);
    const denied = (await hold("Denied one")).json;
    await decideApproval(approver.actor, denied.approval_id, "deny", "no");
    await decideApproval(approver.actor, held.json.approval_id, "approve");
    expect((await row(held.json.id)).status).toBe("queued");
    const before = fake.sent.length;
    expect(await deliverOutboundMail()).toMatchObject({ sent: 1 });
    const wire = fake.sent.slice(before);
    expect(wire).toHaveLength(1);
    expect(wire[0]!.body).toMatchObject({ subject: "Approved one", text: "Hi Bob", html: "<p>Hi</p>", headers: { "Message-ID": held.json.message_id } });
    expect((await row(held.json.id)).status).toBe("sent");
    expect((await row(denied.id)).status).toBe("discarded");
    const [event] = (await (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.sent"))));
    expect(event!.data).toMatchObject({ message: { id: held.json.id, approval_id: held.json.approval_id } });
  });

  it("queues, then the delivery job hands the message to Resend with its threading headers and an idempotency key", async () => {
    const { key, inbox, agent, workspace } = await setup();
    const parentRaw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Staging", text: "?", messageId: "<p1@team.test>" });
    fake.receive({ id: "in-parent", raw: parentRaw, to: [inbox.address], from: "bob@team.test", subject: "Staging" });
    expect((await postWebhook({ type: "email.received", data: { email_id: "in-parent", to: [inbox.address], from: "bob@team.test", subject: "Staging" } })).status).toBe(200);
    const [parent] = await (await getDb()).select().from(messages).where(and(eq(messages.inboxId, inbox.id), eq(messages.messageId, "<p1@team.test>")));
    const reply = await api(`/api/v1/messages/${parent!.id}/reply`, { key, body: { text: "Yes", html: "<p>Yes</p>", headers: { "X-Ticket": "T-1" } }, headers: { "x-trace-id": "trace-reply-1" } });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ status: "queued", delivery: { attempts: 0, next_attempt_at: expect.any(String), provider_id: null } });

    const before = fake.sent.length;
    expect(await deliverOutboundMail()).toMatchObject({ sent: 1 });
    const [wire] = fake.sent.slice(before);
    expect(wire!.idempotencyKey).toBe(reply.json.id);
    expect(wire!.body).toMatchObject({
      from: `"Ops agent" <${inbox.address}>`,
      to: ["bob@team.test"],
      subject: "Re: Staging",
      text: "Yes",
      html: "<p>Yes</p>",
      headers: { "X-Ticket": "T-1", "Message-ID": reply.json.message_id, "In-Reply-To": "<p1@team.test>", References: "<p1@team.test>" },
    });
    const sent = await row(reply.json.id);
    expect(sent).toMatchObject({ status: "sent", providerId: wire!.id, sendAttempts: 1, nextSendAt: null, lastError: null });
    const events = await (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.sent")));
    expect(events.filter((e) => (e.data as { message: { id: string } }).message.id === reply.json.id)).toEqual([
      expect.objectContaining({ agentId: agent.id, data: expect.objectContaining({ message: expect.objectContaining({ status: "sent" }) }) }),
    ]);
    const audit = await (await getDb()).select().from(auditEntries).where(eq(auditEntries.resourceId, reply.json.id)).orderBy(auditEntries.id);
    expect(audit.map((a) => a.action)).toEqual(["email.queued", "email.sent"]);
    // The job's entry joins the trace of the request that sent the mail.
    expect(audit.map((a) => a.traceId)).toEqual(["trace-reply-1", "trace-reply-1"]);
  });

  it("retries what Resend could not take, fails what it refused, and never sends twice after a lost response", async () => {
    const { key, inbox } = await setup();
    const flaky = await send(key, inbox.id, "flaky");
    fake.failNext(500);
    // Read before the attempt: the retry is set from the attempt's own clock, later still (read
    // after it, a busy machine's delay would count against the backoff).
    const attempted = Date.now();
    expect(await deliverOutboundMail()).toMatchObject({ retried: 1 });
    const waiting = await row(flaky.id);
    expect(waiting).toMatchObject({ status: "queued", sendAttempts: 1, lastError: expect.stringMatching(/500/) });
    expect(waiting.nextSendAt!.getTime()).toBeGreaterThan(attempted + 3000);
    expect(await deliverOutboundMail()).toMatchObject({ sent: 0 }); // not due yet
    await makeDue([flaky.id]);
    expect(await deliverOutboundMail()).toMatchObject({ sent: 1 });
    expect(await row(flaky.id)).toMatchObject({ status: "sent", sendAttempts: 2 });

    const refused = await send(key, inbox.id, "refused");
    fake.failNext(422, "validation_error", "The `to` domain is not allowed.");
    expect(await deliverOutboundMail()).toMatchObject({ failed: 1 });
    expect(await row(refused.id)).toMatchObject({ status: "failed", lastError: expect.stringMatching(/422.*not allowed/) });
    const failedAudit = await (await getDb()).select().from(auditEntries).where(and(eq(auditEntries.resourceId, refused.id), eq(auditEntries.action, "email.failed")));
    expect(failedAudit).toHaveLength(1);

    // Resend accepts, but the answer is lost (a crash, a timeout): the retry reuses the idempotency key.
    const lost = await send(key, inbox.id, "lost");
    const real = configuredTransport()!;
    const losing: MailTransport = async (mail) => {
      await real(mail);
      throw new Error("socket hang up");
    };
    const sentBefore = fake.sent.length;
    expect(await deliverOutboundMail(losing)).toMatchObject({ retried: 1 });
    await makeDue([lost.id]);
    expect(await deliverOutboundMail()).toMatchObject({ sent: 1 });
    expect(fake.sent.length - sentBefore).toBe(1);
    expect((await row(lost.id)).providerId).toBe(fake.sent.at(-1)!.id);
  });

  it("sends each message exactly once when many delivery runners race", async () => {
    const { key, inbox } = await setup();
    const queued = [];
    for (let i = 0; i < 24; i++) queued.push(await send(key, inbox.id, `race-${i}`));
    const before = fake.sent.length;
    const runs = await Promise.all(Array.from({ length: 6 }, () => deliverOutboundMail(undefined, 5)));
    // Whatever the first round left (batches of 5), later rounds take; none takes one twice.
    while ((await (await getDb()).select({ id: messages.id }).from(messages).where(and(eq(messages.inboxId, inbox.id), eq(messages.status, "queued")))).length) {
      runs.push(await deliverOutboundMail(undefined, 5));
    }
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(24);
    const wire = fake.sent.slice(before).map((s) => s.idempotencyKey);
    expect(new Set(wire).size).toBe(24);
    expect(wire.sort()).toEqual(queued.map((q) => q.id).sort());
  });
});

describe("Resend's webhooks", () => {
  async function sentMessage() {
    const ctx = await setup();
    const m = await send(ctx.key, ctx.inbox.id, "tracked");
    await deliverOutboundMail();
    const stored = await row(m.id);
    return { ...ctx, id: m.id, providerId: stored.providerId! };
  }

  it("move the status forward on delivery and bounce, emit email.bounced once, and ignore late or repeated events", async () => {
    const { id, providerId, key, agent, workspace } = await sentMessage();
    const delivered = await postWebhook({ type: "email.delivered", data: { email_id: providerId } });
    expect(delivered.status).toBe(200);
    expect(delivered.json).toMatchObject({ handled: true, detail: "sent → delivered" });
    expect((await api(`/api/v1/messages/${id}`, { key })).json.status).toBe("delivered");

    const bounce = { type: "email.bounced", data: { email_id: providerId, bounce: { type: "Permanent", subType: "General", message: "550 5.1.1 mailbox does not exist" } } };
    expect((await postWebhook(bounce)).json.detail).toBe("delivered → bounced");
    expect((await postWebhook(bounce)).json.detail).toMatch(/already bounced/);
    expect((await postWebhook({ type: "email.delivered", data: { email_id: providerId } })).json.detail).toMatch(/already bounced/);
    const msg = (await api(`/api/v1/messages/${id}`, { key })).json;
    expect(msg).toMatchObject({ status: "bounced", delivery: { last_error: "Permanent: General: 550 5.1.1 mailbox does not exist" } });

    const bounced = (await (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.bounced")))).filter(
      (e) => (e.data as { message: { id: string } }).message.id === id,
    );
    expect(bounced).toHaveLength(1);
    expect(bounced[0]).toMatchObject({ agentId: agent.id, data: { bounce: { message: "550 5.1.1 mailbox does not exist" }, message: { status: "bounced" } } });
    const audit = await (await getDb()).select().from(auditEntries).where(eq(auditEntries.resourceId, id)).orderBy(auditEntries.id);
    expect(audit.map((a) => a.action)).toEqual(["email.queued", "email.sent", "email.delivered", "email.bounced"]);
  });

  it("refuse a bad signature or a stale timestamp, and change nothing", async () => {
    const { id, providerId } = await sentMessage();
    const forged = await postWebhook({ type: "email.bounced", data: { email_id: providerId } }, newResendWebhookSecret());
    expect(forged.status).toBe(401);
    expect(forged.json.detail).toMatch(/signature/);
    const { body, headers } = signedResendWebhook(WEBHOOK_SECRET, { type: "email.bounced", data: { email_id: providerId } }, { at: new Date(Date.now() - 3600_000) });
    expect((await api("/api/inbound/resend", { method: "POST", rawBody: body, headers })).status).toBe(401);
    const unsigned = await api("/api/inbound/resend", { method: "POST", rawBody: body, headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);
    expect((await row(id)).status).toBe("sent");
  });

  it("bring received mail in through the one ingestion function, fetching the raw message from Resend", async () => {
    const { key, inbox } = await setup();
    const raw = await composeMime({ from: "Bob <bob@team.test>", to: inbox.address, subject: "Via Resend", text: "Hello <b>there</b>", html: "<p onclick=x()>Hello<script>bad()</script></p>", messageId: "<via-resend@team.test>" });
    fake.receive({ id: "in-1", raw, to: [inbox.address], from: "bob@team.test", subject: "Via Resend" });
    const event = { type: "email.received", data: { email_id: "in-1", to: [inbox.address], from: "bob@team.test", subject: "Via Resend", message_id: "<via-resend@team.test>" } };
    const res = await postWebhook(event);
    expect(res.status).toBe(200);
    expect(res.json.deliveries).toEqual([expect.objectContaining({ inbox_id: inbox.id, duplicate: false })]);
    const again = await postWebhook(event);
    expect(again.json.deliveries[0]).toMatchObject({ duplicate: true, message_id: res.json.deliveries[0].message_id });
    const msg = (await api(`/api/v1/messages/${res.json.deliveries[0].message_id}`, { key })).json;
    expect(msg).toMatchObject({ direction: "inbound", status: "received", subject: "Via Resend", security: { scripts_removed: true } });
    expect(msg.html_sanitized).not.toMatch(/script|onclick/);

    // Where Resend offers no raw download, the message is rebuilt from its parts.
    fake.receive({ id: "in-2", raw: null, to: [inbox.address], from: "Carol <carol@team.test>", subject: "No raw", text: "plain body", headers: { "Auto-Submitted": "auto-replied" } });
    const rebuilt = await postWebhook({ type: "email.received", data: { email_id: "in-2", to: [inbox.address], from: "carol@team.test", subject: "No raw" } });
    const m2 = (await api(`/api/v1/messages/${rebuilt.json.deliveries[0].message_id}`, { key })).json;
    expect(m2).toMatchObject({ from: { email: "carol@team.test" }, subject: "No raw", text: "plain body", automated: true, message_id: "<in-2@fake.resend>" });

    // A message Resend does not have: 404, nothing stored.
    expect((await postWebhook({ type: "email.received", data: { email_id: "in-missing" } })).status).toBe(404);
  });

  it("fetch a received message bigger than MAIL_MAX_BYTES (a request-body limit) when it is within RESEND_INBOUND_MAX_BYTES", async () => {
    const { key, inbox } = await setup();
    // Three times MAIL_MAX_BYTES here (200,000): a ~600 kB attachment, as any photo is.
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Big", text: "see attached", messageId: "<big-via-resend@team.test>", attachments: [{ filename: "photo.bin", content: Buffer.alloc(450_000, 7) }] });
    expect(raw.length).toBeGreaterThan(3 * 200_000);
    fake.receive({ id: "in-big", raw, to: [inbox.address], from: "bob@team.test", subject: "Big" });
    const res = await postWebhook({ type: "email.received", data: { email_id: "in-big", to: [inbox.address] } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const msg = (await api(`/api/v1/messages/${res.json.deliveries[0].message_id}`, { key })).json;
    expect(msg).toMatchObject({ subject: "Big", size_bytes: raw.length });
  });

  it("cut a download over RESEND_INBOUND_MAX_BYTES while it streams, refusing the message whole (413, audited)", async () => {
    const { workspace, inbox } = await setup();
    process.env.RESEND_INBOUND_MAX_BYTES = String(1024 * 1024);
    resetEnvCache();
    try {
      // 64 MB, chunked with no Content-Length: only counting the bytes as they come can stop it.
      fake.receive({ id: "in-huge", raw: null, rawStream: { bytes: 64 * 1024 * 1024 }, to: [inbox.address], from: "big@sender.example", subject: "Huge" });
      const res = await postWebhook({ type: "email.received", data: { email_id: "in-huge", to: [inbox.address] } });
      expect(res.status, res.text.slice(0, 300)).toBe(413);
      expect(res.json).toMatchObject({ code: "payload_too_large", limit_bytes: 1024 * 1024 });
      expect(res.json.detail).toMatch(/RESEND_INBOUND_MAX_BYTES/);
      const download = fake.downloads.find((d) => d.id === "in-huge")!;
      await expect.poll(() => download.closedEarly).toBe(true);
      expect(download.bytesSent).toBeLessThan(16 * 1024 * 1024); // the limit, and what sockets buffer: never the whole
      expect(await (await getDb()).select().from(messages).where(eq(messages.inboxId, inbox.id))).toEqual([]);
      const rejected = await (await getDb()).select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "email.rejected")));
      expect(rejected.map((e) => (e.summary as { reason: string }).reason)).toEqual(["too_large"]);
    } finally {
      delete process.env.RESEND_INBOUND_MAX_BYTES;
      resetEnvCache();
    }
  });

  it("follow the download's redirects on Resend's host only", async () => {
    const { inbox } = await setup();
    const raw = (id: string) => composeMime({ from: "bob@team.test", to: inbox.address, subject: id, text: "hi", messageId: `<${id}@team.test>` });
    // Within the host: followed.
    fake.receive({ id: "in-moved", raw: await raw("in-moved"), to: [inbox.address], from: "bob@team.test", subject: "in-moved", rawRedirect: (u) => u });
    expect((await postWebhook({ type: "email.received", data: { email_id: "in-moved", to: [inbox.address] } })).status).toBe(200);
    // Off it (another name for this machine, as a compromised or misconfigured answer could name any host): not followed.
    fake.receive({ id: "in-away", raw: await raw("in-away"), to: [inbox.address], from: "bob@team.test", subject: "in-away", rawRedirect: (u) => u.replace("127.0.0.1", "localhost") });
    const away = await postWebhook({ type: "email.received", data: { email_id: "in-away", to: [inbox.address] } });
    expect(away.status).toBe(503);
    expect(away.json.detail).toMatch(/localhost.*not Resend's/);
    expect(fake.downloads.filter((d) => d.id === "in-away")).toEqual([]);
    const stored = await (await getDb()).select({ subject: messages.subject }).from(messages).where(eq(messages.inboxId, inbox.id));
    expect(stored).toEqual([{ subject: "in-moved" }]);
  });
});
