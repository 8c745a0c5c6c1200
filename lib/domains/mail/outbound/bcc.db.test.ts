import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["outside.test", "customer.test", "finance.test"];
import { newKey, newMember } from "../../../../test/helpers/fixtures";
import { startFakeResend } from "../../../../test/helpers/fake-resend";
import { composeMime } from "../../../../test/helpers/mime";
import { getDb } from "../../../../db/client";
import { approvals, messages } from "../../../../db/schema";
import { operatorActor } from "../../../platform/actor";
import { createPolicy } from "../../approvals/policies";
import { decideApproval } from "../../approvals/decide-approval";
import { readSource } from "../message-source";
import { messageSchema } from "../schemas";
import { deliverOutboundMail } from "./deliver-outbound";

// Resend configured, pointed at a local fake that speaks its HTTP API: what arrives there is what Resend would send.
let fake: Awaited<ReturnType<typeof startFakeResend>>;
const SECRET = "inbound-secret-for-tests-0123456789";
const vars = { INBOUND_SECRET: SECRET, RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: "http://127.0.0.1:9", AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" };
beforeAll(async () => {
  fake = await startFakeResend({ apiKey: vars.RESEND_API_KEY });
  vars.RESEND_BASE_URL = fake.url;
});
afterAll(() => fake?.close());
setTestEnv(vars);
const { api } = serveApiForTests();

const makeDue = async (ids: string[]) => (await getDb()).update(messages).set({ nextSendAt: sql`now()` }).where(inArray(messages.id, ids));
const row = async (id: string) => (await (await getDb()).select().from(messages).where(eq(messages.id, id)))[0]!;
const wireFor = (subject: string) => fake.sent.filter((w) => w.body.subject === subject);
/** Mail from outside arriving in `inbox`; its message id. */
const receive = async (inbox: { address: string }, mime: Omit<Parameters<typeof composeMime>[0], "to">) => {
  const raw = await composeMime({ ...mime, to: inbox.address });
  const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status, res.text).toBe(200);
  return res.json.deliveries[0].message_id as string;
};
const otherInbox = async (workspaceId: string, agentId: string, prefix: string) =>
  (await api("/api/v1/inboxes", { key: (await newKey(workspaceId, { scopes: ["mail"] })).key, body: { username: `${prefix}-${Math.random().toString(36).slice(2, 8)}`, agent_id: agentId } })).json as { id: string; address: string };
const inboxRows = async (inboxId: string) => (await getDb()).select().from(messages).where(eq(messages.inboxId, inboxId));
const deliver = async (id: string) => {
  await makeDue([id]);
  await deliverOutboundMail();
};

describe("Bcc", () => {
  it("a plain send: Resend gets `bcc`; the stored source and the headers never name it; the sent message lists it for the workspace", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const res = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@customer.test"], bcc: ["Audit@Outside.test"], subject: "Plain bcc", text: "Hello." } });
    expect(res.status, res.text).toBe(201);
    const m = messageSchema.strict().parse(res.json);
    expect(m.bcc).toEqual([{ name: null, email: "audit@outside.test" }]);
    const source = (await readSource(m.id)).toString("latin1");
    expect(source).not.toMatch(/^bcc:/im);
    expect(source.toLowerCase()).not.toContain("audit@outside.test");
    await deliver(m.id);
    const [wire] = wireFor("Plain bcc");
    expect(wire!.body).toMatchObject({ to: ["bob@customer.test"], bcc: ["audit@outside.test"] });
    expect(JSON.stringify(wire!.body.headers ?? {}).toLowerCase()).not.toContain("audit@outside.test");
    expect((await row(m.id)).status).toBe("sent");
    // Read back, the workspace still sees it.
    expect((await api(`/api/v1/messages/${m.id}`, { key })).json.bcc).toEqual([{ name: null, email: "audit@outside.test" }]);
  });

  it("a draft with Bcc sends it the same way (no more 422)", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const d = (await api(`/api/v1/inboxes/${inbox.id}/drafts`, { key, body: { to: ["bob@customer.test"], bcc: ["audit@outside.test", "bob@customer.test"], subject: "Draft bcc", text: "Hi." } })).json;
    const sent = await api(`/api/v1/drafts/${d.id}/send`, { key, body: { version: 1 } });
    expect(sent.status, sent.text).toBe(201);
    // An address already in To is not copied again.
    expect(sent.json.bcc).toEqual([{ name: null, email: "audit@outside.test" }]);
    expect((await readSource(sent.json.id)).toString("latin1").toLowerCase()).not.toContain("audit@outside.test");
    await deliver(sent.json.id);
    expect(wireFor("Draft bcc").map((w) => w.body.bcc)).toEqual([["audit@outside.test"]]);
  });

  it("a Bcc that is an inbox here gets its copy locally, which does not name it as Bcc; an outside Bcc with only local To is refused (422), nothing stored", async () => {
    const { key, inbox, workspace, agent } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const other = (await api("/api/v1/inboxes", { key: (await newKey(workspace.id, { scopes: ["mail"] })).key, body: { username: `watch-${Math.random().toString(36).slice(2, 8)}`, agent_id: agent.id } })).json;
    expect(other.address).toBeTruthy();
    const res = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@customer.test"], bcc: [other.address], subject: "Local bcc", text: "Copy." } });
    expect(res.status, res.text).toBe(201);
    const copies = await (await getDb()).select().from(messages).where(eq(messages.inboxId, other.id));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatchObject({ direction: "inbound", subject: "Local bcc", bcc: [] });
    await deliver(res.json.id);
    const [wire] = wireFor("Local bcc");
    expect(wire!.body.bcc).toBeUndefined();
    expect(wire!.body.to).toEqual(["bob@customer.test"]);

    const before = (await (await getDb()).select().from(messages).where(eq(messages.inboxId, inbox.id))).length;
    const refused = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: [other.address], bcc: ["audit@outside.test"], subject: "Only local", text: "x" } });
    expect(refused.status).toBe(422);
    expect(refused.json.reason).toBe("bcc_needs_external_recipient");
    expect((await (await getDb()).select().from(messages).where(eq(messages.inboxId, inbox.id))).length).toBe(before);
  });

  it("a policy on a recipient domain matches a Bcc; the approval names the Bcc; once approved Resend gets it", async () => {
    const { inbox, workspace, agent } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail", "approvals"] });
    await createPolicy(operatorActor(workspace.id), { name: "Outside", action_class: "email.send", recipient_domain: "@outside.test" });
    const res = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@customer.test"], bcc: ["audit@outside.test"], subject: "Held bcc", text: "Hm." } });
    expect(res.status, res.text).toBe(202);
    const [approval] = await (await getDb()).select().from(approvals).where(eq(approvals.id, res.json.approval_id));
    expect(approval!.action).toMatchObject({ to: ["bob@customer.test"], bcc: ["audit@outside.test"] });
    const approver = await newMember(workspace.id, "approver");
    await decideApproval(approver.actor, res.json.approval_id, "approve");
    await deliver(res.json.id);
    expect(wireFor("Held bcc").map((w) => w.body.bcc)).toEqual([["audit@outside.test"]]);
  });

  it("a reply takes Bcc: Resend gets `bcc`, the source and headers never name it, an address already in To or Cc is not copied again", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const parent = await receive(inbox, { from: "Bob <bob@customer.test>", cc: "carol@customer.test", subject: "Refund?", text: "Where is it?", messageId: "<bcc-r1@customer.test>" });
    const res = await api(`/api/v1/messages/${parent}/reply`, { key, body: { text: "On its way.", reply_all: true, bcc: ["Audit@Outside.test", "carol@customer.test", "audit@outside.test"] } });
    expect(res.status, res.text).toBe(201);
    const m = messageSchema.strict().parse(res.json);
    expect(m).toMatchObject({ to: [{ email: "bob@customer.test" }], cc: [{ email: "carol@customer.test" }], bcc: [{ name: null, email: "audit@outside.test" }], in_reply_to: "<bcc-r1@customer.test>" });
    const source = (await readSource(m.id)).toString("latin1");
    expect(source).not.toMatch(/^bcc:/im);
    expect(source.toLowerCase()).not.toContain("audit@outside.test");
    await deliver(m.id);
    const [wire] = wireFor("Re: Refund?");
    expect(wire!.body).toMatchObject({ to: ["bob@customer.test"], cc: ["carol@customer.test"], bcc: ["audit@outside.test"] });
    expect(JSON.stringify(wire!.body.headers ?? {}).toLowerCase()).not.toContain("audit@outside.test");
  });

  it("a forward takes Bcc; a Bcc that is an inbox here gets its copy locally; with only local To an outside Bcc is 422, nothing stored", async () => {
    const { key, inbox, workspace, agent } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const watcher = await otherInbox(workspace.id, agent.id, "watch");
    const original = await receive(inbox, { from: "bob@customer.test", subject: "Scan", text: "Scanned." });
    const res = await api(`/api/v1/messages/${original}/forward`, { key, body: { to: ["dana@finance.test"], bcc: [watcher.address, "audit@outside.test"], note: "FYI" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.bcc.map((a: { email: string }) => a.email)).toEqual([watcher.address, "audit@outside.test"]);
    expect(res.json.forwarded_from).toBe(original);
    const copies = await inboxRows(watcher.id);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatchObject({ direction: "inbound", subject: "Fwd: Scan", bcc: [] });
    expect((await readSource(res.json.id)).toString("latin1").toLowerCase()).not.toContain("audit@outside.test");
    await deliver(res.json.id);
    // The local Bcc got its copy already: only the outside one goes to Resend.
    expect(wireFor("Fwd: Scan").map((w) => [w.body.to, w.body.bcc])).toEqual([[["dana@finance.test"], ["audit@outside.test"]]]);

    const before = (await inboxRows(inbox.id)).length;
    const refused = await api(`/api/v1/messages/${original}/forward`, { key, body: { to: [watcher.address], bcc: ["audit@outside.test"] } });
    expect(refused.status).toBe(422);
    expect(refused.json.reason).toBe("bcc_needs_external_recipient");
    const reply = await api(`/api/v1/messages/${copies[0]!.id}/reply`, { key, body: { text: "x", bcc: ["audit@outside.test"] } });
    expect(reply.status).toBe(422);
    expect(reply.json.reason).toBe("bcc_needs_external_recipient");
    expect((await inboxRows(inbox.id)).length).toBe(before);
    expect(await inboxRows(watcher.id)).toHaveLength(1);
  });

  it("a policy on a recipient domain matches a reply's or a forward's Bcc; the approval names it; once approved Resend gets it", async () => {
    const { inbox, workspace, agent } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail", "approvals"] });
    await createPolicy(operatorActor(workspace.id), { name: "Outside", action_class: "email.send", recipient_domain: "@outside.test" });
    const parent = await receive(inbox, { from: "bob@customer.test", subject: "Quote", text: "Price?" });
    // Without the Bcc, no rule matches: sent at once.
    expect((await api(`/api/v1/messages/${parent}/reply`, { key, body: { text: "Soon." } })).status).toBe(201);
    const reply = await api(`/api/v1/messages/${parent}/reply`, { key, body: { text: "100 EUR.", bcc: ["audit@outside.test"] } });
    const fwd = await api(`/api/v1/messages/${parent}/forward`, { key, body: { to: ["dana@finance.test"], bcc: ["audit@outside.test"] } });
    const approver = await newMember(workspace.id, "approver");
    for (const [res, subject] of [[reply, "Re: Quote"], [fwd, "Fwd: Quote"]] as const) {
      expect(res.status, res.text).toBe(202);
      const [approval] = await (await getDb()).select().from(approvals).where(eq(approvals.id, res.json.approval_id));
      expect(approval!.action).toMatchObject({ subject, bcc: ["audit@outside.test"] });
      await decideApproval(approver.actor, res.json.approval_id, "approve");
      await deliver(res.json.id);
      expect(wireFor(subject).filter((w) => w.body.bcc).map((w) => w.body.bcc)).toEqual([["audit@outside.test"]]);
    }
  });

  it("ten racing replies with Bcc and one Idempotency-Key: one message, one local Bcc copy, one Resend call carrying the Bcc", async () => {
    const { key, inbox, workspace, agent } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const watcher = await otherInbox(workspace.id, agent.id, "race");
    const parent = await receive(inbox, { from: "bob@customer.test", subject: "Race bcc", text: "Hi." });
    const body = { text: "Once.", bcc: [watcher.address, "audit@outside.test"] };
    const answers = await Promise.all(Array.from({ length: 10 }, () => api(`/api/v1/messages/${parent}/reply`, { key, body, headers: { "idempotency-key": "bcc-reply-race" } })));
    const ok = answers.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(1);
    for (const r of answers.filter((r) => r.status !== 201)) expect(r.status).toBe(409);
    expect((await inboxRows(inbox.id)).filter((m) => m.direction === "outbound")).toHaveLength(1);
    expect(await inboxRows(watcher.id)).toHaveLength(1);
    // Four delivery runs racing for it: one claims it, one Resend call.
    await makeDue([ok[0]!.json.id]);
    await Promise.all(Array.from({ length: 4 }, () => deliverOutboundMail()));
    expect(wireFor("Re: Race bcc").map((w) => [w.body.to, w.body.bcc])).toEqual([[["bob@customer.test"], ["audit@outside.test"]]]);
  });

  it("Bcc counts toward a reply's and a forward's 50 recipients", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const parent = await receive(inbox, { from: "bob@customer.test", subject: "Many", text: "Hi." });
    const many = Array.from({ length: 50 }, (_, i) => `p${i}@outside.test`);
    const reply = await api(`/api/v1/messages/${parent}/reply`, { key, body: { text: "x", bcc: many } });
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({ reason: "too_many_recipients", limit: 50 });
    expect(reply.json.detail).toContain("50 in Bcc");
    const fwd = await api(`/api/v1/messages/${parent}/forward`, { key, body: { to: ["dana@finance.test"], bcc: many } });
    expect(fwd.status).toBe(400);
    expect(fwd.json.code).toBe("validation_failed");
    expect((await inboxRows(inbox.id)).filter((m) => m.direction === "outbound")).toHaveLength(0);
    // Within the limit, both go.
    expect((await api(`/api/v1/messages/${parent}/reply`, { key, body: { text: "x", bcc: many.slice(0, 49) } })).status).toBe(201);
    expect((await api(`/api/v1/messages/${parent}/forward`, { key, body: { to: ["dana@finance.test"], bcc: many.slice(0, 49) } })).status).toBe(201);
  });
});
