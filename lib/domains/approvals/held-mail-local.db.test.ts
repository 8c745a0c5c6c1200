import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { getDb } from "../../../db/client";
import { auditEntries, messages, webhookEvents } from "../../../db/schema";
import { readSource } from "../mail/message-source";
import { decideApproval } from "./decide-approval";

// The embedded default: no mail provider, so mail to the outside is only captured.
setTestEnv({ AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

async function setup() {
  const a = await newAgentInbox(api);
  const { key } = await newKey(a.workspace.id, { agent_id: a.agent.id, scopes: ["mail", "approvals"] });
  const agent = await newAgent(a.workspace.id, "desk");
  const { key: bKey } = await newKey(a.workspace.id, { agent_id: agent.id, scopes: ["mail"] });
  const b = (await api("/api/v1/inboxes", { key: bKey, body: { username: `desk-${Math.random().toString(36).slice(2, 8)}` } })).json as { id: string; address: string };
  const approver = await newMember(a.workspace.id, "approver");
  return { ...a, key, b, bKey, approver };
}

const received = async (key: string, inboxId: string) =>
  ((await api(`/api/v1/inboxes/${inboxId}/messages`, { key })).json.data as Record<string, unknown>[]).filter((m) => m.direction === "inbound");

describe("held mail to inboxes of this deployment", () => {
  it("approved: local recipients receive exactly the approved bytes, threaded, in the deciding transaction; email.sent names the approval", async () => {
    const { workspace, inbox, key, b, bKey, approver } = await setup();
    // B writes first, so A's held mail is a reply in B's thread.
    const first = await api(`/api/v1/inboxes/${b.id}/messages`, { key: bKey, body: { to: [inbox.address], subject: "Refund for 8812?", text: "Can we refund?" } });
    expect(first.json.status).toBe("delivered");
    const [asked] = await received(key, inbox.id);
    const held = await api(`/api/v1/messages/${asked!.id}/reply`, { key, body: { text: "Yes: 120 EUR.", require_approval: true } });
    expect(held.status).toBe(202);
    expect(held.json.status).toBe("pending_approval");
    expect(await received(bKey, b.id)).toEqual([]); // nothing before a person approves

    await decideApproval(approver.actor, held.json.approval_id, "approve");
    expect((await api(`/api/v1/messages/${held.json.id}`, { key })).json).toMatchObject({ status: "delivered", approval_id: held.json.approval_id });
    const got = await received(bKey, b.id);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ direction: "inbound", message_id: held.json.message_id, thread_id: first.json.thread_id, in_reply_to: first.json.message_id, text: expect.stringContaining("Yes: 120 EUR.") });
    expect((await readSource(got[0]!.id as string)).equals(await readSource(held.json.id))).toBe(true);

    const db = await getDb();
    const sent = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "email.sent")));
    const heldSent = sent.filter((e) => (e.data as { message: { id: string } }).message.id === held.json.id);
    expect(heldSent).toHaveLength(1);
    expect(heldSent[0]!.data).toMatchObject({ approval_id: held.json.approval_id });
    const [audit] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "email.sent"), eq(auditEntries.resourceId, held.json.id)));
    expect(audit!.summary).toMatchObject({ approval_id: held.json.approval_id, status: "delivered", delivered_locally: [{ inbox_id: b.id, message_id: got[0]!.id }] });
    // Spent by sending: the same approval.consumed event and audit entry as an agent's consume.
    const [consumed] = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "approval.consumed")));
    expect(consumed!.data).toMatchObject({ approval_id: held.json.approval_id, consumed_by: null, message_id: held.json.id });
    const spent = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "approval.consumed")));
    expect(spent.map((e) => e.resourceId)).toEqual([held.json.approval_id]);
  });

  it("with outside recipients too: the local one receives it now, the outside one goes the usual way (captured here)", async () => {
    const { inbox, key, b, bKey, approver } = await setup();
    const held = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@customer.test"], cc: [b.address], subject: "Refund", text: "Done.", require_approval: true } });
    expect(held.status).toBe(202);
    await decideApproval(approver.actor, held.json.approval_id, "approve");
    expect((await api(`/api/v1/messages/${held.json.id}`, { key })).json.status).toBe("captured");
    expect((await received(bKey, b.id)).map((m) => m.message_id)).toEqual([held.json.message_id]);
  });

  it("denied: the local recipient receives nothing", async () => {
    const { inbox, key, b, bKey, approver } = await setup();
    const held = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: [b.address], subject: "Refund", text: "Done.", require_approval: true } });
    await decideApproval(approver.actor, held.json.approval_id, "deny", "not yet");
    expect((await api(`/api/v1/messages/${held.json.id}`, { key })).json.status).toBe("discarded");
    expect(await received(bKey, b.id)).toEqual([]);
    const db = await getDb();
    expect(await db.select({ id: messages.id }).from(messages).where(and(eq(messages.inboxId, b.id), eq(messages.direction, "inbound")))).toEqual([]);
  });

  it("approved: a copy in another workspace starts its own trace, and one here carries the sender's trace only if the sender may use it", async () => {
    const { inbox, key, bKey, b, approver, workspace } = await setup();
    const x = await newAgentInbox(api);
    const chosen = `trace-held-${Math.random().toString(36).slice(2, 10)}`;
    const held = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, headers: { "x-trace-id": chosen }, body: { to: [x.inbox.address, b.address], subject: "Held", text: "x", require_approval: true } });
    expect(held.status).toBe(202);
    await decideApproval(approver.actor, held.json.approval_id, "approve");
    const [theirs] = await received(x.key, x.inbox.id);
    expect(theirs!.trace_id).toBeTruthy();
    expect(theirs!.trace_id).not.toBe(chosen);
    expect((await received(bKey, b.id))[0]!.trace_id).toBe(chosen);

    // Another agent's trace, chosen while sending: the copy here does not join it.
    const [p, r] = await Promise.all([newAgent(workspace.id, "p"), newAgent(workspace.id, "r")]);
    const foreign = `trace-foreign-${Math.random().toString(36).slice(2, 10)}`;
    const pKey = (await newKey(workspace.id, { agent_id: p.id })).key;
    expect((await api("/api/v1/handoffs", { key: pKey, headers: { "x-trace-id": foreign }, body: { to_agent_id: r.id, type: "t", body: {} } })).status).toBe(201);
    const again = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, headers: { "x-trace-id": foreign }, body: { to: [b.address], subject: "Held 2", text: "y", require_approval: true } });
    await decideApproval(approver.actor, again.json.approval_id, "approve");
    const copy = (await received(bKey, b.id)).find((m) => m.subject === "Held 2");
    expect(copy!.trace_id).not.toBe(foreign);
  });
});
