import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["example.com"];
import { composeMime } from "../../../test/helpers/mime";
import { getDb } from "../../../db/client";
import { auditEntries, messageLabels, messages } from "../../../db/schema";
import { labelsSchema, messageSchema, threadSchema } from "./schemas";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

let n = 0;
async function receive(to: string, subject = `Hello ${++n}`, headers: Record<string, string> = {}) {
  const raw = await composeMime({ from: "bob@example.com", to, subject, text: "Can we meet Thursday?", messageId: `<labels-${process.pid}-${++n}@example.com>`, headers });
  const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status, res.text).toBe(200);
  return { id: res.json.deliveries[0].message_id as string, threadId: res.json.deliveries[0].thread_id as string };
}

const label = (key: string, path: string, body: unknown) => api(path, { key, body });

describe("labels on messages", () => {
  it("add, remove, show on the message and filter the inbox by them", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const a = await receive(inbox.address);
    const b = await receive(inbox.address);

    const added = await label(key, `/api/v1/messages/${a.id}/labels`, { add: ["Follow-Up", "billing/q1", "follow-up"] });
    expect(added.status, added.text).toBe(200);
    expect(labelsSchema.parse(added.json)).toEqual({ object: "labels", id: a.id, labels: ["unread", "billing/q1", "follow-up"] });
    // Adding again changes nothing.
    expect((await label(key, `/api/v1/messages/${a.id}/labels`, { add: ["follow-up"] })).json.labels).toEqual(["unread", "billing/q1", "follow-up"]);

    const listed = await api(`/api/v1/inboxes/${inbox.id}/messages?label=follow-up`, { key });
    expect(listed.json.data.map((m: { id: string }) => m.id)).toEqual([a.id]);
    expect(messageSchema.parse(listed.json.data[0]).labels).toEqual(["unread", "billing/q1", "follow-up"]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=FOLLOW-UP`, { key })).json.data).toHaveLength(1);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=nothing-here`, { key })).json.data).toEqual([]);

    const removed = await label(key, `/api/v1/messages/${a.id}/labels`, { remove: ["follow-up", "never-there"] });
    expect(removed.json.labels).toEqual(["unread", "billing/q1"]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=follow-up`, { key })).json.data).toEqual([]);
    expect((await api(`/api/v1/messages/${b.id}`, { key })).json.labels).toEqual([]);
    // Each change that changed something is in the audit trail, by whom and what; the repeated add is not.
    const db = await getDb();
    const audited = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, a.id), eq(auditEntries.action, "message.labels_changed"))).orderBy(auditEntries.at);
    expect(audited.map((e) => e.summary)).toEqual([
      { added: ["billing/q1", "follow-up"], removed: [] },
      { added: [], removed: ["follow-up"] },
    ]);
  }, 120_000); // the file's first mail starts the parse worker: room for a loaded machine

  it("refuse bad names, too many labels and system labels with a clear 400, changing nothing", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { id } = await receive(inbox.address);
    const path = `/api/v1/messages/${id}/labels`;
    for (const [body, field] of [
      [{ add: ["has space"] }, "add.0"],
      [{ add: ["x".repeat(51)] }, "add.0"],
      [{ add: [""] }, "add.0"],
      [{ add: ["-leading-dash"] }, "add.0"],
      [{ add: ["emoji-🙂"] }, "add.0"],
      [{ add: Array.from({ length: 21 }, (_, i) => `l${i}`) }, "add"],
      [{}, "add"],
      [{ add: [] }, "add"],
      [{ add: ["sent"] }, "add"],
      [{ remove: ["spam"] }, "remove"],
      [{ add: ["draft"] }, "add"],
      [{ add: ["a"], remove: ["a"] }, "remove"],
    ] as const) {
      const res = await label(key, path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors[0].field, JSON.stringify(body)).toBe(field);
    }
    expect((await label(key, path, { add: ["sent"] })).json.detail).toMatch(/system label/);

    // 20 at most: the 21st is refused, the count is named.
    expect((await label(key, path, { add: Array.from({ length: 20 }, (_, i) => `l${i}`) })).status).toBe(200);
    const over = await label(key, path, { add: ["one-more"] });
    expect(over.status).toBe(400);
    expect(over.json.detail).toMatch(/at most 20 labels/);
    // The agent opening it marks it read: 20 labels, no unread.
    expect((await api(`/api/v1/messages/${id}`, { key })).json.labels).toHaveLength(20);
    // Re-adding labels it has is still fine at the limit.
    expect((await label(key, path, { add: ["l0", "l1"] })).status).toBe(200);
  });

  it("an agent-bound key labels only its own inbox's mail: another agent's message or thread is 404", async () => {
    const mine = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const theirs = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { id, threadId } = await receive(theirs.inbox.address);
    const res = await label(mine.key, `/api/v1/messages/${id}/labels`, { add: ["x"] });
    expect(res.status).toBe(404);
    expect((await label(mine.key, `/api/v1/threads/${threadId}/labels`, { add: ["x"] })).status).toBe(404);
    // Same workspace, another agent: still 404.
    const other = await newAgent(theirs.workspace.id, "other");
    const { key: otherKey } = await newKey(theirs.workspace.id, { agent_id: other.id, scopes: ["mail"] });
    expect((await label(otherKey, `/api/v1/messages/${id}/labels`, { add: ["x"] })).status).toBe(404);
    expect((await api(`/api/v1/inboxes/${theirs.inbox.id}/messages?label=x`, { key: otherKey })).status).toBe(404);
    const db = await getDb();
    expect(await db.select().from(messageLabels).where(eq(messageLabels.messageId, id))).toEqual([]);
    // A workspace-wide key may.
    const { key: wide } = await newKey(theirs.workspace.id, { scopes: ["mail"] });
    expect((await label(wide, `/api/v1/messages/${id}/labels`, { add: ["x"] })).json.labels).toEqual(["unread", "x"]);
  });

  it("many concurrent adds on one message end with each label once, and the limit holds under the race", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { id } = await receive(inbox.address);
    const path = `/api/v1/messages/${id}/labels`;
    const names = ["urgent", "billing", "customer/acme", "q1", "review"];
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => label(key, path, { add: [names[i % names.length]!, names[(i + 1) % names.length]!] })));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    const db = await getDb();
    const stored = await db.select({ label: messageLabels.label }).from(messageLabels).where(eq(messageLabels.messageId, id));
    expect(stored.map((s) => s.label).sort()).toEqual([...names].sort());

    // 25 racing single adds onto 5 labels: 15 fit under 20, the other 10 are refused.
    const racing = await Promise.all(Array.from({ length: 25 }, (_, i) => label(key, path, { add: [`race-${i}`] })));
    expect(racing.filter((r) => r.status === 200)).toHaveLength(15);
    expect(racing.filter((r) => r.status === 400)).toHaveLength(10);
    expect(await db.select().from(messageLabels).where(eq(messageLabels.messageId, id))).toHaveLength(20);
  }, 120_000);
});

describe("system labels", () => {
  it("unread: received mail is unread until the inbox's agent opens it; lists and other readers do not mark it", async () => {
    const { key, inbox, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { id } = await receive(inbox.address);
    const { key: wide } = await newKey(workspace.id, { scopes: ["mail"] });
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=unread`, { key })).json.data.map((m: { id: string }) => m.id)).toEqual([id]);
    expect((await api(`/api/v1/messages/${id}`, { key: wide })).json.labels).toEqual(["unread"]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=unread`, { key })).json.data).toHaveLength(1);

    // The agent opens it: read from now on (the answer already shows it read).
    expect((await api(`/api/v1/messages/${id}`, { key })).json.labels).toEqual([]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=unread`, { key })).json.data).toEqual([]);

    // By hand: unread again, then read.
    expect((await label(key, `/api/v1/messages/${id}/labels`, { add: ["unread"] })).json.labels).toEqual(["unread"]);
    expect((await label(key, `/api/v1/messages/${id}/labels`, { remove: ["unread"] })).json.labels).toEqual([]);
  });

  it("sent, draft and spam follow the mail's state; on a thread, any message's", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { id, threadId } = await receive(inbox.address);
    const reply = await api(`/api/v1/messages/${id}/reply`, { key, body: { text: "Thursday works." } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.labels).toEqual(["sent"]);
    expect((await label(key, `/api/v1/messages/${reply.json.id}/labels`, { add: ["unread"] })).status).toBe(400);
    const held = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["carol@example.com"], subject: "Held", text: "Wait for it", require_approval: true } });
    expect(held.status, held.text).toBe(202);
    expect(held.json.labels).toEqual(["draft"]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=draft`, { key })).json.data.map((m: { id: string }) => m.id)).toEqual([held.json.id]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=sent`, { key })).json.data.map((m: { id: string }) => m.id)).toEqual([reply.json.id]);

    const thread = await api(`/api/v1/threads/${threadId}`, { key });
    expect(threadSchema.parse(thread.json).labels).toEqual(["sent"]);

    // Spam: received mail whose sender authentication failed.
    const db = await getDb();
    const spam = await receive(inbox.address, "Spoofed");
    const [row] = await db.select().from(messages).where(eq(messages.id, spam.id));
    await db.update(messages).set({ security: { ...row!.security, auth_failed: true } }).where(eq(messages.id, spam.id));
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=spam`, { key })).json.data.map((m: { id: string }) => m.id)).toEqual([spam.id]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/threads?label=spam`, { key })).json.data.map((t: { id: string }) => t.id)).toEqual([spam.threadId]);
  });
});

describe("labels on threads", () => {
  it("add and remove on the thread, list and filter threads; unread on a thread marks its received mail", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const first = await receive(inbox.address, "Plan");
    const other = await receive(inbox.address, "Other");
    const path = `/api/v1/threads/${first.threadId}/labels`;
    expect((await label(key, path, { add: ["needs-human"] })).json).toEqual({ object: "labels", id: first.threadId, labels: ["unread", "needs-human"] });

    const list = await api(`/api/v1/inboxes/${inbox.id}/threads`, { key });
    const byId = Object.fromEntries(list.json.data.map((t: { id: string; labels: string[] }) => [t.id, t.labels]));
    expect(byId).toEqual({ [first.threadId]: ["unread", "needs-human"], [other.threadId]: ["unread"] });
    expect((await api(`/api/v1/inboxes/${inbox.id}/threads?label=needs-human`, { key })).json.data.map((t: { id: string }) => t.id)).toEqual([first.threadId]);
    // A thread's label is not its messages'.
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?label=needs-human`, { key })).json.data).toEqual([]);

    expect((await label(key, path, { remove: ["unread"] })).json.labels).toEqual(["needs-human"]);
    expect((await api(`/api/v1/inboxes/${inbox.id}/threads?label=unread`, { key })).json.data.map((t: { id: string }) => t.id)).toEqual([other.threadId]);
    expect((await label(key, path, { add: ["unread"], remove: ["needs-human"] })).json.labels).toEqual(["unread"]);
    expect((await label(key, path, { add: ["sent"] })).status).toBe(400);
    expect((await api(`/api/v1/inboxes/${inbox.id}/threads?label=bad%20name`, { key })).status).toBe(400);
  });
});
