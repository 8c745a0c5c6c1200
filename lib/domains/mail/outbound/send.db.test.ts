// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { newAgent, newKey } from "../../../../test/helpers/fixtures";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["team.test"];
import { composeMime } from "../../../../test/helpers/mime";
import { getDb } from "../../../../db/client";
import { auditEntries, messages, webhookEvents } from "../../../../db/schema";
import { sourceStream } from "../message-source";
import { messageSchema } from "../schemas";

// No RESEND_API_KEY: outbound mail is captured, as on a fresh install.
const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const setup = (username?: string) => newAgentInbox(api, username, CORRESPONDENTS);

const deliver = async (raw: Buffer) => {
  const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status).toBe(200);
  return res.json.deliveries[0] as { message_id: string; thread_id: string };
};

const countMessages = async (inboxId: string) => (await (await getDb()).select({ id: messages.id }).from(messages).where(eq(messages.inboxId, inboxId))).length;

describe("POST /v1/inboxes/{id}/messages", () => {
  it("captures a new message without a mail provider: stored in the received shape, threaded, outboxed and audited", async () => {
    const { key, inbox, agent, workspace } = await setup();
    const res = await api(`/api/v1/inboxes/${inbox.id}/messages`, {
      key,
      body: { to: ["Bob@Team.test"], cc: ["carol@team.test"], subject: "Staging cluster", text: "Booked 15:00-17:00.", html: "<p>Booked <b>15:00-17:00</b>.<script>alert(1)</script></p>", headers: { "X-Campaign-Id": "ops-42" } },
      headers: { "x-trace-id": "trace-send-1" },
    });
    expect(res.status).toBe(201);
    const m = messageSchema.strict().parse(res.json);
    expect(m).toMatchObject({
      direction: "outbound",
      status: "captured",
      from: { name: "Ops agent", email: inbox.address },
      to: [{ email: "bob@team.test" }],
      cc: [{ email: "carol@team.test" }],
      subject: "Staging cluster",
      text: "Booked 15:00-17:00.",
      in_reply_to: null,
      references: [],
      delivery: { attempts: 0, next_attempt_at: null, last_error: null, provider_id: null },
    });
    expect(m.message_id).toBe(`<${m.id}@agents.test>`);
    expect(m.html_sanitized).toContain("<b>15:00-17:00</b>");
    expect(m.html_sanitized).not.toContain("script");
    expect(m).not.toHaveProperty("content_notice");

    const db = await getDb();
    const source = await sourceStream(m.id);
    const wire = await simpleParser(Buffer.concat(await source.stream.toArray()));
    expect(wire.messageId).toBe(m.message_id);
    expect(wire.headers.get("x-campaign-id")).toBe("ops-42");
    expect(wire.html).toContain("<script>"); // sent as written; only what is shown is sanitised

    const events = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.sent")));
    const mine = events.find((e) => (e.data as { message: { id: string } }).message.id === m.id);
    expect(mine).toMatchObject({ agentId: agent.id, data: { truncated: false, message: { status: "captured", thread_id: m.thread_id } } });
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, m.id), eq(auditEntries.action, "email.sent")));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ traceId: "trace-send-1", outcome: "succeeded" });

    const thread = await api(`/api/v1/threads/${m.thread_id}`, { key });
    expect(thread.json.messages.map((x: { id: string }) => x.id)).toEqual([m.id]);
    const listed = await api(`/api/v1/inboxes/${inbox.id}/messages?direction=outbound`, { key });
    expect(listed.json.data.map((x: { id: string }) => x.id)).toEqual([m.id]);
  });

  it("refuses header injection and reserved headers, and stores nothing", async () => {
    const { key, inbox } = await setup();
    const send = (body: Record<string, unknown>) => api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@team.test"], subject: "Hi", text: "t", ...body } });
    const crlfSubject = await send({ subject: "Hi\r\nBcc: victim@evil.test" });
    expect(crlfSubject.status).toBe(400);
    expect(crlfSubject.json.errors).toEqual([expect.objectContaining({ field: "subject", message: expect.stringMatching(/line breaks/) })]);
    const lfSubject = await send({ subject: "Hi\nX: y" });
    expect(lfSubject.status).toBe(400);
    const reserved = await send({ headers: { Bcc: "victim@evil.test", "Message-ID": "<forged@x>", References: "<a@b>" } });
    expect(reserved.status).toBe(400);
    expect(reserved.json.errors.map((e: { field: string }) => e.field).sort()).toEqual(["headers.Bcc", "headers.Message-ID", "headers.References"]);
    const valueBreak = await send({ headers: { "X-Note": "ok\r\nBcc: victim@evil.test" } });
    expect(valueBreak.status).toBe(400);
    expect(valueBreak.json.errors[0]).toMatchObject({ field: "headers.X-Note", message: expect.stringMatching(/line breaks/) });
    const badName = await send({ headers: { "X Bad:Name": "v" } });
    expect(badName.status).toBe(400);
    const badAddress = await send({ to: ["not an address"] });
    expect(badAddress.status).toBe(400);
    const noRecipients = await send({ to: [] });
    expect(noRecipients.status).toBe(400);
    expect(await countMessages(inbox.id)).toBe(0);
  });

  it("sends only from the key's own agent's inboxes, and needs the mail scope", async () => {
    const { workspace, inbox } = await setup();
    const other = await newAgent(workspace.id, "other");
    const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id, scopes: ["mail"] });
    const res = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key: otherKey, body: { to: ["bob@team.test"], subject: "Hi", text: "t" } });
    expect(res.status).toBe(404);
    const { key: calendarOnly } = await newKey(workspace.id, { scopes: ["calendar"] });
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages`, { key: calendarOnly, body: { to: ["bob@team.test"], subject: "Hi", text: "t" } })).status).toBe(403);
    expect(await countMessages(inbox.id)).toBe(0);
  });

  it("is idempotent with an Idempotency-Key: one message for many retries, even concurrent ones", async () => {
    const { key, inbox } = await setup();
    const body = { to: ["bob@team.test"], subject: "Once", text: "only once" };
    const first = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body, headers: { "idempotency-key": "send-once-1" } });
    const again = await Promise.all(Array.from({ length: 8 }, () => api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body, headers: { "idempotency-key": "send-once-1" } })));
    expect(first.status).toBe(201);
    for (const r of again) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 201) expect(r.json.id).toBe(first.json.id);
    }
    expect(await countMessages(inbox.id)).toBe(1);
  });
});

describe("POST /v1/messages/{id}/reply", () => {
  it("replies in the thread with In-Reply-To and the whole References chain, across a conversation", async () => {
    const { key, inbox } = await setup();
    const first = await deliver(
      await composeMime({ from: "Bob <bob@team.test>", to: inbox.address, cc: "carol@team.test", subject: "Staging at 15:00?", text: "Can I have it?", messageId: "<q1@team.test>", references: "<root@team.test>" }),
    );
    const reply = await api(`/api/v1/messages/${first.message_id}/reply`, { key, body: { text: "Yes, held for you." } });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({
      status: "captured",
      thread_id: first.thread_id,
      subject: "Re: Staging at 15:00?",
      to: [{ email: "bob@team.test" }],
      cc: [],
      in_reply_to: "<q1@team.test>",
      references: ["<root@team.test>", "<q1@team.test>"],
    });

    // Bob answers our reply; then we answer again: the chain grows and the thread holds all four.
    const second = await deliver(
      await composeMime({ from: "Bob <bob@team.test>", to: inbox.address, subject: "Re: Staging at 15:00?", text: "Thanks! Make it 16:00?", messageId: "<q2@team.test>", inReplyTo: reply.json.message_id, references: ["<root@team.test>", "<q1@team.test>", reply.json.message_id] }),
    );
    expect(second.thread_id).toBe(first.thread_id);
    const again = await api(`/api/v1/messages/${second.message_id}/reply`, { key, body: { text: "Moved to 16:00.", reply_all: true } });
    expect(again.json).toMatchObject({
      thread_id: first.thread_id,
      subject: "Re: Staging at 15:00?",
      in_reply_to: "<q2@team.test>",
      references: ["<root@team.test>", "<q1@team.test>", reply.json.message_id, "<q2@team.test>"],
    });
    const thread = await api(`/api/v1/threads/${first.thread_id}`, { key });
    expect(thread.json.message_count).toBe(4);
    expect(thread.json.messages.map((m: { direction: string }) => m.direction)).toEqual(["inbound", "outbound", "inbound", "outbound"]);
  });

  it("answers the Reply-To, and with reply_all everyone else but itself", async () => {
    const { key, inbox } = await setup();
    const parent = await deliver(
      await composeMime({ from: "Bob <bob@team.test>", replyTo: "ops-desk@team.test", to: [inbox.address, "dana@team.test"], cc: ["carol@team.test", inbox.address], subject: "Question", text: "?", messageId: "<rt@team.test>" }),
    );
    const one = await api(`/api/v1/messages/${parent.message_id}/reply`, { key, body: { text: "!" } });
    expect(one.json.to).toEqual([{ name: null, email: "ops-desk@team.test" }]);
    const all = await api(`/api/v1/messages/${parent.message_id}/reply`, { key, body: { text: "!", reply_all: true } });
    expect(all.json.to.map((a: { email: string }) => a.email)).toEqual(["ops-desk@team.test"]);
    expect(all.json.cc.map((a: { email: string }) => a.email).sort()).toEqual(["carol@team.test", "dana@team.test"]);
  });

  it("refuses to answer automated mail unless told to, so agents do not loop", async () => {
    const { key, inbox } = await setup();
    const auto = await deliver(
      await composeMime({ from: "Bob <bob@team.test>", to: inbox.address, subject: "Out of office", text: "I am away.", messageId: "<ooo@team.test>", headers: { "Auto-Submitted": "auto-replied" } }),
    );
    const refused = await api(`/api/v1/messages/${auto.message_id}/reply`, { key, body: { text: "Thanks" } });
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toMatch(/automated.*allow_automated/);
    expect(await countMessages(inbox.id)).toBe(1);
    const forced = await api(`/api/v1/messages/${auto.message_id}/reply`, { key, body: { text: "Thanks", allow_automated: true } });
    expect(forced.status).toBe(201);
  });

  it("is not found for another agent's message, and refuses reserved headers", async () => {
    const { workspace, key, inbox } = await setup();
    const parent = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Hi", text: "t", messageId: "<nf@team.test>" }));
    const other = await newAgent(workspace.id, "other");
    const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id, scopes: ["mail"] });
    expect((await api(`/api/v1/messages/${parent.message_id}/reply`, { key: otherKey, body: { text: "x" } })).status).toBe(404);
    expect((await api(`/api/v1/messages/msg_nope/reply`, { key, body: { text: "x" } })).status).toBe(404);
    const reserved = await api(`/api/v1/messages/${parent.message_id}/reply`, { key, body: { text: "x", headers: { "In-Reply-To": "<forged@x>" } } });
    expect(reserved.status).toBe(400);
    expect((await api(`/api/v1/messages/${parent.message_id}/reply`, { key, body: {} })).status).toBe(400);
    expect(await countMessages(inbox.id)).toBe(1);
  });
});
