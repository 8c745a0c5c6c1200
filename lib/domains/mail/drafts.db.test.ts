// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newMember } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["customer.test", "team.test"];
import { composeMime } from "../../../test/helpers/mime";
import { getDb } from "../../../db/client";
import { approvals, auditEntries, drafts, messages, webhookEvents } from "../../../db/schema";
import { operatorActor } from "../../platform/actor";
import { readSource } from "./message-source";
import { draftSchema } from "./draft-schemas";
import { messageSchema } from "./schemas";
import { returnDraft } from "./drafts";
import { sendStoredDraft } from "../approvals/mail-gate";
import { createPolicy } from "../approvals/policies";
import { decideApproval } from "../approvals/decide-approval";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

async function setup() {
  const base = await newAgentInbox(api, undefined, CORRESPONDENTS);
  const { key } = await newKey(base.workspace.id, { agent_id: base.agent.id, scopes: ["mail", "approvals"] });
  const reviewer = await newMember(base.workspace.id, "approver");
  const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) => api(`/api/v1/inboxes/${base.inbox.id}/drafts`, { key, body, headers });
  const deliver = async (raw: Buffer) => {
    const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
    expect(res.status).toBe(200);
    return res.json.deliveries[0] as { message_id: string; thread_id: string };
  };
  return { ...base, key, reviewer, create, deliver };
}

const db = getDb;
const draftRows = async (inboxId: string) => (await db()).select().from(drafts).where(eq(drafts.inboxId, inboxId));
const outbound = async (inboxId: string) => (await db()).select().from(messages).where(and(eq(messages.inboxId, inboxId), eq(messages.direction, "outbound")));
const events = async (workspaceId: string, type: string) => (await db()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));
const audits = async (resourceId: string) => (await db()).select().from(auditEntries).where(eq(auditEntries.resourceId, resourceId));

const NEW = { to: ["Bob@Customer.test"], subject: "Your refund", text: "We refunded 120 EUR." };

describe("drafts", () => {
  it("creates, reads, lists and edits a draft under its version; a stale version is 409 and changes nothing", async () => {
    const { workspace, inbox, key, create } = await setup();
    const res = await create(NEW);
    expect(res.status).toBe(201);
    const d = draftSchema.strict().parse(res.json);
    expect(d).toMatchObject({ status: "draft", version: 1, kind: "new", to: ["bob@customer.test"], subject: "Your refund", in_reply_to: null, message_id: null, created_by: { type: "key" } });
    expect(res.headers.get("etag")).toBe('"1"');
    expect(await events(workspace.id, "draft.created")).toHaveLength(1);
    expect((await audits(d.id)).map((a) => a.action)).toEqual(["draft.created"]);

    const got = await api(`/api/v1/drafts/${d.id}`, { key });
    expect(got.json).toEqual(res.json);
    expect(got.headers.get("etag")).toBe('"1"');

    const edited = await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "We refunded 150 EUR." }, headers: { "if-match": '"1"' } });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ version: 2, text: "We refunded 150 EUR.", subject: "Your refund" });
    expect(edited.headers.get("etag")).toBe('"2"');

    const stale = await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "Stale", version: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ code: "conflict", reason: "stale_version", version: 2 });
    const noVersion = await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "No version" } });
    expect(noVersion.status).toBe(400);
    const badIfMatch = await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "x" }, headers: { "if-match": "abc" } });
    expect(badIfMatch.status).toBe(400);
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json).toMatchObject({ version: 2, text: "We refunded 150 EUR." });

    await create({ ...NEW, subject: "Second" });
    await create({ ...NEW, subject: "Third" });
    const page1 = await api(`/api/v1/inboxes/${inbox.id}/drafts?limit=2`, { key });
    expect(page1.json).toMatchObject({ object: "list", has_more: true });
    expect(page1.json.data.map((x: { subject: string }) => x.subject)).toEqual(["Third", "Second"]);
    const page2 = await api(`/api/v1/inboxes/${inbox.id}/drafts?limit=2&starting_after=${page1.json.data[1].id}`, { key });
    expect(page2.json.data.map((x: { id: string }) => x.id)).toEqual([d.id]);
    expect(page2.json.has_more).toBe(false);
  });

  it("bad input is a 4xx that stores nothing", async () => {
    const { inbox, create } = await setup();
    const many = Array.from({ length: 51 }, (_, i) => `p${i}@customer.test`);
    const cases: [Record<string, unknown>, number][] = [
      [{ ...NEW, to: many }, 400],
      [{ ...NEW, to: many.slice(0, 30), cc: many.slice(30, 45), bcc: many.slice(45) }, 400],
      [{ ...NEW, subject: "Hi\r\nBcc: victim@evil.test" }, 400],
      [{ ...NEW, subject: "x".repeat(901) }, 400],
      [{ ...NEW, to: ["not an address"] }, 400],
      [{ ...NEW, kind: "reply" }, 400],
      [{ ...NEW, in_reply_to: "msg_00000000000000000000000000" }, 400],
      [{ ...NEW, kind: "reply", in_reply_to: "msg_00000000000000000000000000" }, 400],
      [{ ...NEW, headers: { From: "ceo@evil.test" } }, 400],
      [{ ...NEW, unknown_field: 1 }, 400],
      [{ ...NEW, text: "x".repeat(500_001) }, 400],
    ];
    for (const [body, status] of cases) expect((await create(body)).status, JSON.stringify(body).slice(0, 80)).toBe(status);
    expect(await draftRows(inbox.id)).toEqual([]);
  });

  it("a reply draft takes To, subject and threading from its message; sent, it is threaded under it and the draft is sent with its message id", async () => {
    const { workspace, inbox, key, create, deliver } = await setup();
    const first = await deliver(await composeMime({ from: "Bob <bob@customer.test>", to: inbox.address, subject: "Refund?", text: "Where is my refund?", messageId: "<q1@customer.test>" }));
    const res = await create({ kind: "reply", in_reply_to: first.message_id, text: "On its way." });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: "reply", in_reply_to: first.message_id, to: ["bob@customer.test"], cc: [], subject: "Re: Refund?" });

    const sent = await api(`/api/v1/drafts/${res.json.id}/send`, { key, body: {}, headers: { "if-match": '"1"' } });
    expect(sent.status).toBe(201);
    const m = messageSchema.strict().parse(sent.json);
    expect(m).toMatchObject({ status: "captured", thread_id: first.thread_id, in_reply_to: "<q1@customer.test>", subject: "Re: Refund?", text: "On its way." });
    const after = (await api(`/api/v1/drafts/${res.json.id}`, { key })).json;
    expect(after).toMatchObject({ status: "sent", message_id: m.id, approval_id: null, version: 2, sent_at: expect.any(String) });
    const ev = await events(workspace.id, "draft.sent");
    expect(ev).toHaveLength(1);
    expect(ev[0]!.data).toMatchObject({ draft: { id: res.json.id, message_id: m.id, status: "sent" } });
    expect((await audits(res.json.id)).map((a) => a.action)).toEqual(["draft.created", "draft.sent"]);
    expect(await events(workspace.id, "email.sent")).toHaveLength(1);

    const again = await api(`/api/v1/drafts/${res.json.id}/send`, { key, body: {} });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: "draft_sent", message_id: m.id });
    expect((await api(`/api/v1/drafts/${res.json.id}`, { key, method: "PATCH", body: { text: "late", version: 2 } })).status).toBe(409);
    expect(await outbound(inbox.id)).toHaveLength(1);
  });

  it("ten racing sends of one draft make one message; the others are 409", async () => {
    const { inbox, key, create } = await setup();
    const d = (await create(NEW)).json;
    const results = await Promise.all(Array.from({ length: 10 }, () => api(`/api/v1/drafts/${d.id}/send`, { key, body: {} })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    const sent = await outbound(inbox.id);
    expect(sent).toHaveLength(1);
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json).toMatchObject({ status: "sent", message_id: sent[0]!.id, version: 2 });
  });

  it("ten racing sends of a draft a policy holds make one held message and one approval", async () => {
    const { workspace, inbox, key, create } = await setup();
    await createPolicy(operatorActor(workspace.id), { name: "Customers", action_class: "email.send", recipient_domain: "@customer.test" });
    const d = (await create(NEW)).json;
    const results = await Promise.all(Array.from({ length: 10 }, () => api(`/api/v1/drafts/${d.id}/send`, { key, body: {} })));
    expect(results.filter((r) => r.status === 202)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const held = await outbound(inbox.id);
    expect(held).toHaveLength(1);
    expect(await (await db()).select().from(approvals).where(eq(approvals.workspaceId, workspace.id))).toHaveLength(1);
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json).toMatchObject({ status: "sent", message_id: held[0]!.id, approval_id: held[0]!.approvalId });
  });

  it("a send with an Idempotency-Key retried answers the same and sends once", async () => {
    const { inbox, key, create } = await setup();
    const d = (await create(NEW)).json;
    const headers = { "idempotency-key": "send-draft-once-1" };
    const a = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {}, headers });
    const b = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {}, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).toBe(a.json.id);
    expect(await outbound(inbox.id)).toHaveLength(1);
  });

  it("a send naming an older version is 409 and sends nothing", async () => {
    const { inbox, key, create } = await setup();
    const d = (await create(NEW)).json;
    await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { subject: "Changed", version: 1 } });
    const res = await api(`/api/v1/drafts/${d.id}/send`, { key, body: { version: 1 } });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ reason: "stale_version", version: 2 });
    expect(await outbound(inbox.id)).toEqual([]);
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json.status).toBe("draft");
  });

  it("a draft a policy holds: 202 with the approval, the draft sent with it, and once approved exactly the held bytes go out", async () => {
    const { workspace, inbox, key, reviewer, create } = await setup();
    await createPolicy(operatorActor(workspace.id), { name: "Customers", action_class: "email.send", recipient_domain: "@customer.test" });
    const d = (await create({ ...NEW, html: "<p>Refunded <b>120 EUR</b></p>" })).json;
    const res = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    expect(res.status).toBe(202);
    const held = messageSchema.strict().parse(res.json);
    expect(held).toMatchObject({ status: "pending_approval", approval_id: expect.stringMatching(/^appr_/) });
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json).toMatchObject({ status: "sent", message_id: held.id, approval_id: held.approval_id });
    const bytes = await readSource(held.id);
    const approval = (await api(`/api/v1/approvals/${held.approval_id}`, { key })).json;
    expect(approval.action).toMatchObject({ message: held.id, to: ["bob@customer.test"], subject: "Your refund" });

    // The draft cannot change under the approval: what the person approves is what leaves.
    expect((await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "Swapped after review", version: 2 } })).status).toBe(409);
    await decideApproval(reviewer.actor, held.approval_id!, "approve");
    const out = (await api(`/api/v1/messages/${held.id}`, { key })).json;
    expect(out).toMatchObject({ status: "captured", approval_id: held.approval_id });
    const after = await readSource(held.id);
    expect(after.equals(bytes)).toBe(true);
    const wire = await simpleParser(after);
    expect(wire.text?.trim()).toBe("We refunded 120 EUR.");
    expect(await outbound(inbox.id)).toHaveLength(1);
  });

  it("a person sends a draft back with a note the agent reads; the agent cannot send it until it edits it", async () => {
    const { workspace, inbox, key, reviewer, create } = await setup();
    const d = (await create(NEW)).json;
    const returned = await returnDraft(reviewer.actor, d.id, 1, "Say 150 EUR, not 120.");
    expect(returned).toMatchObject({ status: "returned", reviewNote: "Say 150 EUR, not 120.", version: 2 });
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json).toMatchObject({ status: "returned", review_note: "Say 150 EUR, not 120." });
    expect((await api(`/api/v1/inboxes/${inbox.id}/drafts?status=returned`, { key })).json.data).toHaveLength(1);
    expect(await events(workspace.id, "draft.returned")).toHaveLength(1);

    const blocked = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    expect(blocked.status).toBe(409);
    expect(blocked.json).toMatchObject({ reason: "draft_returned" });
    expect(await outbound(inbox.id)).toEqual([]);

    const fixed = await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "We refunded 150 EUR." }, headers: { "if-match": "2" } });
    expect(fixed.json).toMatchObject({ status: "draft", version: 3 });
    expect((await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} })).status).toBe(201);
    const audit = (await audits(d.id)).map((a) => a.action);
    expect(audit).toEqual(["draft.created", "draft.returned", "draft.updated", "draft.sent"]);
  });

  it("a person sends a draft as themselves: audited as the member; a rule asking for more than one approval refuses", async () => {
    const { workspace, inbox, key, reviewer, create } = await setup();
    const d = (await create(NEW)).json;
    const { message, approval } = await sendStoredDraft(reviewer.actor, d.id, 1);
    expect(approval).toBeNull();
    expect(message.status).toBe("captured");
    const sentAudit = (await audits(d.id)).find((a) => a.action === "draft.sent");
    expect(sentAudit).toMatchObject({ actorType: "member", actorId: reviewer.member.id });

    await createPolicy(operatorActor(workspace.id), { name: "Two people", action_class: "email.send", recipient_domain: "@customer.test", required_approvals: 2 });
    const d2 = (await create(NEW)).json;
    await expect(sendStoredDraft(reviewer.actor, d2.id, 1)).rejects.toMatchObject({ code: "approval_required" });
    expect(await outbound(inbox.id)).toHaveLength(1);
    expect((await api(`/api/v1/drafts/${d2.id}`, { key })).json.status).toBe("draft");
  });

  it("discarded drafts are kept and never sent; a forward draft sends as a forward; an incomplete draft is 422", async () => {
    const { inbox, key, create, deliver } = await setup();
    const d = (await create(NEW)).json;
    expect((await api(`/api/v1/drafts/${d.id}?version=3`, { key, method: "DELETE" })).status).toBe(409);
    const gone = await api(`/api/v1/drafts/${d.id}`, { key, method: "DELETE", headers: { "if-match": '"1"' } });
    expect(gone.status).toBe(200);
    expect(gone.json).toMatchObject({ status: "discarded", version: 2 });
    expect((await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} })).status).toBe(409);
    expect((await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "back", version: 2 } })).status).toBe(409);

    const first = await deliver(await composeMime({ from: "bob@customer.test", to: inbox.address, subject: "Invoice", text: "See attached.", messageId: "<inv1@customer.test>" }));
    const fwd = await create({ kind: "forward", in_reply_to: first.message_id, to: ["accounts@team.test"], text: "FYI" });
    expect(fwd.status).toBe(201);
    expect(fwd.json).toMatchObject({ kind: "forward", subject: "Fwd: Invoice", in_reply_to: first.message_id });

    const empty = (await create({ to: ["bob@customer.test"] })).json;
    const incomplete = await api(`/api/v1/drafts/${empty.id}/send`, { key, body: {} });
    expect(incomplete.status).toBe(422);
    expect(incomplete.json).toMatchObject({ reason: "incomplete_draft" });
    expect(await outbound(inbox.id)).toEqual([]);

    // A forward draft sends as a forward: its text is the note above the forwarded message, once.
    const fwdSend = await api(`/api/v1/drafts/${fwd.json.id}/send`, { key, body: {} });
    expect(fwdSend.status, fwdSend.text).toBe(201);
    const sent = await outbound(inbox.id);
    expect(sent).toHaveLength(1);
    const message = (await api(`/api/v1/messages/${fwdSend.json.id}`, { key })).json;
    expect(message).toMatchObject({ subject: "Fwd: Invoice", forwarded_from: first.message_id, to: [expect.objectContaining({ email: "accounts@team.test" })] });
    expect(message.text).toMatch(/^FYI\n\n---------- Forwarded message ---------/);
    expect(message.text).toContain("See attached.");
    expect((await api(`/api/v1/drafts/${fwd.json.id}/send`, { key, body: {} })).status).toBe(409);
  });

  it("another agent's key sees none of an inbox's drafts", async () => {
    const { key, create } = await setup();
    const other = await setup();
    const d = (await create(NEW)).json;
    expect((await api(`/api/v1/drafts/${d.id}`, { key: other.key })).status).toBe(404);
    expect((await api(`/api/v1/drafts/${d.id}/send`, { key: other.key, body: {} })).status).toBe(404);
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).status).toBe(200);
  });

  it("an agent's edit of a draft waiting for approval is 409 telling it what to do; ten racing edits change nothing; withdrawn, the edit is 409 saying nothing was sent", async () => {
    const { workspace, inbox, key, create } = await setup();
    await createPolicy(operatorActor(workspace.id), { name: "Customers", action_class: "email.send", recipient_domain: "@customer.test" });
    const d = (await create(NEW)).json;
    const held = (await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} })).json;
    expect(held.status).toBe("pending_approval");
    const edits = await Promise.all(Array.from({ length: 10 }, (_, i) => api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: `Swap ${i}`, version: 2 } })));
    for (const r of edits) {
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({ code: "conflict", reason: "draft_awaiting_approval", approval_id: held.approval_id, message_id: held.id, message_status: "pending_approval" });
      // It says how to go on: wait for the decision, or withdraw the approval and write a new draft.
      expect(r.json.detail).toContain(`GET /v1/approvals/${held.approval_id}?wait=30`);
      expect(r.json.detail).toContain(`POST /v1/approvals/${held.approval_id}/cancel`);
      expect(r.json.detail).toContain("only a person's edit");
    }
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json).toMatchObject({ status: "sent", version: 2, text: NEW.text });
    expect((await api(`/api/v1/approvals/${held.approval_id}`, { key })).json.status).toBe("pending");
    // A second send says the same.
    expect((await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} })).json.reason).toBe("draft_awaiting_approval");

    // The agent does what the answer says: withdraws the approval. The held message is discarded, never sent.
    expect((await api(`/api/v1/approvals/${held.approval_id}/cancel`, { key, method: "POST" })).status).toBe(200);
    expect((await api(`/api/v1/messages/${held.id}`, { key })).json.status).toBe("discarded");
    const late = await api(`/api/v1/drafts/${d.id}`, { key, method: "PATCH", body: { text: "Now?", version: 2 } });
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ reason: "draft_discarded_by_approval", message_status: "discarded" });
    expect(late.json.detail).toContain("nothing was sent");
    // And writes a new draft, which sends (and is held) as any other.
    const again = (await create({ ...NEW, text: "We refunded 150 EUR." })).json;
    expect((await api(`/api/v1/drafts/${again.id}/send`, { key, body: {} })).status).toBe(202);
    expect((await outbound(inbox.id)).map((m) => m.status).sort()).toEqual(["discarded", "pending_approval"]);
  });
});
