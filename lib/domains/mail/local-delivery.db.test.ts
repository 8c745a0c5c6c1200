import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { getDb } from "../../../db/client";
import { auditEntries, messages, webhookEvents } from "../../../db/schema";

// The embedded default: PGlite, no mail provider (RESEND_API_KEY unset), so mail to the outside is only captured.
setTestEnv({ AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

async function secondInbox(workspaceId: string, username: string) {
  const agent = await newAgent(workspaceId, `agent-${username}`);
  const { key } = await newKey(workspaceId, { agent_id: agent.id, scopes: ["mail"] });
  const res = await api("/api/v1/inboxes", { key, body: { username } });
  expect(res.status).toBe(201);
  return { agent, key, inbox: res.json as { id: string; address: string } };
}

const events = async (workspaceId: string, type: string) =>
  (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));

describe("mail between inboxes of one deployment", () => {
  it("is delivered in the sending transaction, threaded on both sides, with email.received for the recipient, on one trace", async () => {
    const a = await newAgentInbox(api);
    const b = await secondInbox(a.workspace.id, `desk-${Date.now().toString(36)}`);

    const sent = await api(`/api/v1/inboxes/${a.inbox.id}/messages`, {
      key: a.key,
      headers: { "x-trace-id": "trace-mail-1" },
      body: { to: [b.inbox.address.toUpperCase()], subject: "Can you take the Tuesday slot?", text: "Please confirm by noon." },
    });
    expect(sent.status).toBe(201);
    expect(sent.json.status).toBe("delivered");

    // Already in B's inbox when the send returned.
    const inbox = await api(`/api/v1/inboxes/${b.inbox.id}/messages`, { key: b.key });
    expect(inbox.json.data).toHaveLength(1);
    const got = inbox.json.data[0];
    expect(got).toMatchObject({ direction: "inbound", status: "received", subject: "Can you take the Tuesday slot?", message_id: sent.json.message_id, from: { email: a.inbox.address } });
    const [received] = await events(a.workspace.id, "email.received");
    expect(received).toMatchObject({ agentId: b.agent.id, traceId: "trace-mail-1", data: { message: { id: got.id } } });

    // B replies: delivered locally too, and each side keeps one thread.
    const reply = await api(`/api/v1/messages/${got.id}/reply`, { key: b.key, body: { text: "Confirmed." } });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ status: "delivered", thread_id: got.thread_id, in_reply_to: sent.json.message_id });
    const aSide = (await api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key })).json.data;
    expect(aSide.map((m: { direction: string }) => m.direction).sort()).toEqual(["inbound", "outbound"]);
    expect(new Set(aSide.map((m: { thread_id: string }) => m.thread_id)).size).toBe(1);
    expect(aSide.find((m: { direction: string }) => m.direction === "inbound").thread_id).toBe(sent.json.thread_id);

    const db = await getDb();
    const trail = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, a.workspace.id), eq(auditEntries.traceId, "trace-mail-1")));
    expect(trail.map((e) => e.action).sort()).toEqual(["email.received", "email.sent"]);
  });

  it("sends external recipients the usual way (captured here), delivers the local ones, and keeps the recipient's sender rules", async () => {
    const a = await newAgentInbox(api);
    const b = await secondInbox(a.workspace.id, `strict-${Date.now().toString(36)}`);
    const c = await secondInbox(a.workspace.id, `open-${Date.now().toString(36)}`);
    // B accepts only mail from elsewhere: the sender is refused there as from outside.
    expect((await api(`/api/v1/inboxes/${b.inbox.id}`, { key: b.key, method: "PATCH", body: { block_senders: [a.inbox.address] } })).status).toBe(200);

    const sent = await api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key, body: { to: ["someone@outside.test", c.inbox.address], cc: [b.inbox.address], subject: "Mixed", text: "Hi" } });
    expect(sent.status).toBe(201);
    expect(sent.json.status).toBe("captured");
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, c.inbox.id))).toHaveLength(1);
    expect(await db.select().from(messages).where(eq(messages.inboxId, b.inbox.id))).toHaveLength(0);
    const refused = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, b.inbox.id), eq(auditEntries.action, "email.refused")));
    expect(refused).toHaveLength(1);
  });

  it("two inboxes mailing each other at once neither deadlock nor lose a message", async () => {
    const a = await newAgentInbox(api);
    const b = await secondInbox(a.workspace.id, `peer-${Date.now().toString(36)}`);
    const sends = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key, body: { to: [b.inbox.address], subject: `a${i}`, text: "x" } })
          : api(`/api/v1/inboxes/${b.inbox.id}/messages`, { key: b.key, body: { to: [a.inbox.address], subject: `b${i}`, text: "x" } }),
      ),
    );
    expect(sends.map((s) => s.status)).toEqual(Array(10).fill(201));
    const db = await getDb();
    expect(await db.select().from(messages).where(and(eq(messages.inboxId, a.inbox.id), eq(messages.direction, "inbound")))).toHaveLength(5);
    expect(await db.select().from(messages).where(and(eq(messages.inboxId, b.inbox.id), eq(messages.direction, "inbound")))).toHaveLength(5);
  });
});
