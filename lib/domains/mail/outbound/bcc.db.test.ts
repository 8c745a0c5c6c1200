import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";
import { newKey, newMember } from "../../../../test/helpers/fixtures";
import { startFakeResend } from "../../../../test/helpers/fake-resend";
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
const vars = { RESEND_API_KEY: "re_test_key", RESEND_BASE_URL: "http://127.0.0.1:9", AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" };
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
const deliver = async (id: string) => {
  await makeDue([id]);
  await deliverOutboundMail();
};

describe("Bcc", () => {
  it("a plain send: Resend gets `bcc`; the stored source and the headers never name it; the sent message lists it for the workspace", async () => {
    const { key, inbox } = await newAgentInbox(api);
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
    const { key, inbox } = await newAgentInbox(api);
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
    const { key, inbox, workspace, agent } = await newAgentInbox(api);
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
    const { inbox, workspace, agent } = await newAgentInbox(api);
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
});
