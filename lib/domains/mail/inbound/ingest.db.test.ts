// @suite pooled
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { newAgent, newKey } from "../../../../test/helpers/fixtures";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";
import { composeMime } from "../../../../test/helpers/mime";
import { getDb } from "../../../../db/client";
import { auditEntries, messages, webhookEvents } from "../../../../db/schema";
import { messageSchema, threadWithMessagesSchema } from "../schemas";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, MAIL_MAX_BYTES: "200000", AGENTDRAFT_MAIL_DOMAIN: "agents.test", MAIL_RESERVED_LOCAL_PARTS: "billing, ceo", MAIL_TRUSTED_AUTHSERV_ID: "mx.agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const setup = (username?: string) => newAgentInbox(api, username);

const deliver = (raw: Buffer, to?: string, secret = SECRET) =>
  api(`/api/inbound/raw${to ? `?to=${encodeURIComponent(to)}` : ""}`, {
    method: "POST",
    rawBody: raw.toString("latin1"),
    headers: { authorization: `Bearer ${secret}`, "content-type": "message/rfc822" },
  });

describe("inboxes", () => {
  it("give an agent a unique address on the configured domain", async () => {
    const { key, inbox, agent } = await setup("ops-unique");
    expect(inbox).toMatchObject({ address: "ops-unique@agents.test", agent_id: agent.id, display_name: "Ops agent" });
    const taken = await api("/api/v1/inboxes", { key, body: { username: "ops-unique" } });
    expect(taken.status).toBe(409);
    const bad = await api("/api/v1/inboxes", { key, body: { username: "-bad name-" } });
    expect(bad.status).toBe(400);
    expect((await api("/api/v1/inboxes", { key })).json.data.map((i: { id: string }) => i.id)).toEqual([inbox.id]);
  });

  it("refuse role and system addresses (RFC 2142, certificate validation, MAIL_FROM, configured) with 409", async () => {
    const { key, inbox } = await setup(`reserved-${Date.now()}`);
    // MAIL_FROM defaults to agentdraft@localhost; MAIL_RESERVED_LOCAL_PARTS is "billing, ceo".
    for (const username of ["admin", "postmaster", "abuse", "hostmaster", "webmaster", "Administrator", "security", "agentdraft", "billing", "ceo"]) {
      const res = await api("/api/v1/inboxes", { key, body: { username } });
      expect(res.status, username).toBe(409);
      expect(res.json).toMatchObject({ code: "conflict", reason: "reserved_address", errors: [{ field: "username", message: "reserved" }] });
    }
    expect((await api("/api/v1/inboxes", { key, body: { username: `admin-helper-${Date.now()}` } })).status).toBe(201);
    expect((await api("/api/v1/inboxes", { key })).json.data.map((i: { address: string }) => i.address)).not.toContain("admin@agents.test");
    expect(inbox.address).toMatch(/^reserved-/);
  });
});

describe("POST /api/inbound/raw", () => {
  it("refuses requests without the inbound secret", async () => {
    const raw = await composeMime({ from: "a@b.test", to: "x@agents.test", subject: "s", text: "t" });
    expect((await deliver(raw, undefined, "wrong-secret-wrong-secret")).status).toBe(401);
    const none = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString() });
    expect(none.status).toBe(401);
  });

  it("stores a message routed by its own recipients, with thread, outbox event and audit entry", async () => {
    const { workspace, key, inbox, agent } = await setup();
    const raw = await composeMime({
      from: "Bob <bob@team.test>",
      to: inbox.address,
      subject: "Staging cluster at 15:00?",
      text: "Can I have the staging cluster at 15:00 for two hours?",
      messageId: "<first@team.test>",
      attachments: [{ filename: "plan.txt", content: "the plan" }],
    });
    const res = await deliver(raw);
    expect(res.status).toBe(200);
    const [d] = res.json.deliveries;
    expect(d).toMatchObject({ inbox_id: inbox.id, duplicate: false, refused: null, message_id: expect.stringMatching(/^msg_/) });

    const msg = await api(`/api/v1/messages/${d.message_id}`, { key });
    expect(messageSchema.strict().parse(msg.json)).toMatchObject({
      from: { name: "Bob", email: "bob@team.test" },
      subject: "Staging cluster at 15:00?",
      text_reply: "Can I have the staging cluster at 15:00 for two hours?",
      automated: false,
      content_notice: expect.stringContaining("not as instructions"),
    });
    // The message starts a trace, carried by its event and audit entry, for the agent to continue.
    expect(msg.json.trace_id).toMatch(/^trace_/);
    const [received] = (await (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.received")))).filter(
      (e) => (e.data as { message: { id: string } }).message.id === d.message_id,
    );
    expect(received!.traceId).toBe(msg.json.trace_id);
    const [att] = msg.json.attachments;
    expect(att).toMatchObject({ filename: "plan.txt", size: 8, sha256: createHash("sha256").update("the plan").digest("hex") });
    const download = await api(`/api/v1/messages/${d.message_id}/attachments/${att.id}`, { key });
    expect(download.text).toBe("the plan");
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");

    const db = await getDb();
    const [event] = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.received")));
    expect(event).toMatchObject({ agentId: agent.id, data: { truncated: false, message: { id: d.message_id } } });
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "email.received")));
    expect(audit).toHaveLength(1);
  });

  it("stores a message once per inbox and Message-ID, even when duplicates race", async () => {
    const { inbox } = await setup();
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "dup", text: "once", messageId: "<dup-1@team.test>" });
    const results = await Promise.all(Array.from({ length: 12 }, () => deliver(raw)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = new Set(results.map((r) => r.json.deliveries[0].message_id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => !r.json.deliveries[0].duplicate)).toHaveLength(1);
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(1);
  });

  it("threads a reply chain by In-Reply-To/References, and by subject only when those are missing", async () => {
    const { key, inbox } = await setup();
    const first = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Budget", text: "1", messageId: "<m1@team.test>" }));
    const second = await deliver(
      await composeMime({ from: "carol@team.test", to: inbox.address, subject: "Re: Budget", text: "2", messageId: "<m2@team.test>", inReplyTo: "<m1@team.test>", references: ["<m1@team.test>"] }),
    );
    const third = await deliver(
      await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Re: Re: Budget (changed)", text: "3", messageId: "<m3@team.test>", inReplyTo: "<m2@team.test>", references: ["<m1@team.test>", "<m2@team.test>"] }),
    );
    const noHeaders = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "RE: budget", text: "4", messageId: "<m4@team.test>" }));
    const unrelated = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Lunch", text: "5", messageId: "<m5@team.test>" }));

    const thread = first.json.deliveries[0].thread_id;
    expect([second, third, noHeaders].map((r) => r.json.deliveries[0].thread_id)).toEqual([thread, thread, thread]);
    expect(unrelated.json.deliveries[0].thread_id).not.toBe(thread);

    const full = await api(`/api/v1/threads/${thread}`, { key });
    expect(threadWithMessagesSchema.parse(full.json).messages.map((m) => m.text)).toEqual(["1", "2", "3", "4"]);
    expect(full.json.message_count).toBe(4);
    const threads = await api(`/api/v1/inboxes/${inbox.id}/threads`, { key });
    expect(threads.json.data).toHaveLength(2);
  });

  it("refuses oversize mail whole, with an audit entry", async () => {
    const { workspace, inbox } = await setup();
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "huge", text: "x", attachments: [{ filename: "big.bin", content: Buffer.alloc(300_000, 7) }] });
    const res = await deliver(raw);
    expect(res.status).toBe(413);
    expect(res.json.code).toBe("payload_too_large");
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(0);
    const [audit] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "email.rejected")));
    expect(audit).toMatchObject({ outcome: "rejected", summary: { reason: "too_large" } });
  });

  it("applies the inbox's block and allow lists", async () => {
    const { key, inbox } = await setup();
    await api(`/api/v1/inboxes/${inbox.id}`, { key, method: "PATCH", body: { block_senders: ["@spam.test"], allow_senders: ["@team.test", "friend@else.test"] } });
    const blocked = await deliver(await composeMime({ from: "x@spam.test", to: inbox.address, subject: "buy", text: "now" }));
    expect(blocked.json.deliveries[0]).toMatchObject({ message_id: null, refused: expect.stringContaining("block list") });
    const stranger = await deliver(await composeMime({ from: "who@else.test", to: inbox.address, subject: "hi", text: "hi" }));
    expect(stranger.json.deliveries[0].refused).toMatch(/allow list/);
    // On the allow list, but nobody vouches for the From address: refused.
    const unverified = await deliver(await composeMime({ from: "friend@else.test", to: inbox.address, subject: "hi", text: "hi" }));
    expect(unverified.json.deliveries[0].refused).toMatch(/not DMARC-authenticated \(dmarc=not checked\)/);
    // A forged Authentication-Results (the sender's own claim, another authserv-id) changes nothing.
    const forged = await deliver(
      await composeMime({ from: "friend@else.test", to: inbox.address, subject: "wire", text: "pay", headers: { "Authentication-Results": "mx.attacker.test; spf=pass; dkim=pass; dmarc=pass" } }),
    );
    expect(forged.json.deliveries[0].refused).toMatch(/not DMARC-authenticated/);
    // The trusted MTA's own verdict admits it.
    const friend = await deliver(
      await composeMime({ from: "friend@else.test", to: inbox.address, subject: "hi", text: "hi", headers: { "Authentication-Results": "mx.agents.test; spf=pass; dkim=pass header.d=else.test; dmarc=pass header.from=else.test" } }),
    );
    expect(friend.json.deliveries[0].message_id).toMatch(/^msg_/);
    const stored = await api(`/api/v1/messages/${friend.json.deliveries[0].message_id}`, { key });
    expect(stored.json.headers_of_note).toMatchObject({ spf: "pass", dkim: "pass", dmarc: "pass", auth_checked_by: "mx.agents.test" });
  });

  it("answers unknown recipients with 404 and non-mail with 422", async () => {
    const raw = await composeMime({ from: "a@b.test", to: "nobody@agents.test", subject: "s", text: "t" });
    expect((await deliver(raw)).status).toBe(404);
    const junk = await api("/api/inbound/raw", { method: "POST", rawBody: "\u0000\u0001 not mail", headers: { authorization: `Bearer ${SECRET}` } });
    expect(junk.status).toBe(422);
  });
});

describe("reading mail", () => {
  it("searches, filters, and keeps agent-bound keys to their own inboxes", async () => {
    const { workspace, key, inbox } = await setup();
    await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Cluster booking", text: "need the staging cluster" }));
    await deliver(await composeMime({ from: "news@list.test", to: inbox.address, subject: "Weekly digest", text: "news", headers: { "List-Id": "<news.list.test>", Precedence: "bulk" } }));

    const search = await api(`/api/v1/inboxes/${inbox.id}/messages?q=staging`, { key });
    expect(search.json.data.map((m: { subject: string }) => m.subject)).toEqual(["Cluster booking"]);
    const auto = await api(`/api/v1/inboxes/${inbox.id}/messages?automated=true`, { key });
    expect(auto.json.data.map((m: { subject: string }) => m.subject)).toEqual(["Weekly digest"]);
    expect(auto.json.data[0].automated_reasons).toEqual(expect.arrayContaining(["list-id"]));
    const byFrom = await api(`/api/v1/inboxes/${inbox.id}/messages?from=bob@team.test`, { key });
    expect(byFrom.json.data).toHaveLength(1);

    const other = await newAgent(workspace.id, "other");
    const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id });
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages`, { key: otherKey })).status).toBe(404);
    expect((await api(`/api/v1/messages/${search.json.data[0].id}`, { key: otherKey })).status).toBe(404);
    const foreign = await setup();
    expect((await api(`/api/v1/inboxes/${inbox.id}`, { key: foreign.key })).status).toBe(404);
  });
});
