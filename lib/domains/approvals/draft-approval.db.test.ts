// @suite pooled
// Edit and approve in one place (issue #31): on a draft's page a person edits, then approves and
// sends with their passkey; the receipt binds exactly the bytes that leave, and an edit after the
// approval was requested cancels it, so it can never release other bytes.
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newMember } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { softwarePasskey } from "../../../test/helpers/software-passkey";
import { getDb } from "../../../db/client";
import { approvals, drafts, members, messages, users } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { operatorActor } from "../../platform/actor";
import { readSource } from "../mail/message-source";
import { createPolicy } from "./policies";
import { decideApproval } from "./decide-approval";
import { decideWithPasskey, relyingParty } from "./decide-with-passkey";
import { sendStoredDraft } from "./mail-gate";
import { draftNeedsApproval, editDraftAsPerson, prepareDraftApproval } from "./draft-approval";
import { actionHash, verifyReceipt } from "./receipts";

setTestEnv({ AUTH_URL: "https://agentdraft.test", AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const db = getDb;

async function setup(policy = true) {
  const base = await newAgentInbox(api);
  const { key } = await newKey(base.workspace.id, { agent_id: base.agent.id, scopes: ["mail", "approvals"] });
  const m = await newMember(base.workspace.id, "approver");
  const [user] = await (await db()).insert(users).values({ id: newId("user"), email: m.member.email }).returning();
  await (await db()).update(members).set({ userId: user!.id }).where(eq(members.id, m.member.id));
  const passkey = softwarePasskey();
  await passkey.register(user!.id);
  if (policy) await createPolicy(operatorActor(base.workspace.id), { name: "Customers", action_class: "email.send", recipient_domain: "@customer.test" });
  const create = async (body: Record<string, unknown> = {}) =>
    (await api(`/api/v1/inboxes/${base.inbox.id}/drafts`, { key, body: { to: ["bob@customer.test"], subject: "Refund", text: "We refunded 120 EUR.", ...body } })).json as { id: string; version: number };
  /** The page's "Approve and send": step one, the browser's passkey, step two (the approvals page's own). */
  const approveAndSend = async (draftId: string, version: number) => {
    const { approvalId, options } = await prepareDraftApproval(m.actor, draftId, version);
    return decideWithPasskey(m.actor, approvalId, "approve", null, passkey.assert({ challenge: options.challenge, origin: relyingParty().origin }));
  };
  return { ...base, key, person: m, create, approveAndSend };
}

const draftRow = async (id: string) => (await (await db()).select().from(drafts).where(eq(drafts.id, id)))[0]!;
const messageRow = async (id: string) => (await (await db()).select().from(messages).where(eq(messages.id, id)))[0]!;
const outbound = async (inboxId: string) => (await db()).select().from(messages).where(and(eq(messages.inboxId, inboxId), eq(messages.direction, "outbound")));

describe("a draft approved and sent from its page", () => {
  it("under a one-person policy a plain send is refused; Approve and send records the approval, its vote with the passkey, and a receipt binding the bytes that leave", async () => {
    const { workspace, inbox, person, create, approveAndSend } = await setup();
    const d = await create();
    expect(await draftNeedsApproval(person.actor, await draftRow(d.id))).toEqual({ policy: "Customers", requiredApprovals: 1 });
    await expect(sendStoredDraft(person.actor, d.id, d.version)).rejects.toMatchObject({ code: "approval_required", extra: expect.objectContaining({ reason: "approve_with_passkey" }) });
    expect(await outbound(inbox.id)).toEqual([]);

    const approved = await approveAndSend(d.id, d.version);
    expect(approved.status).toBe("approved");
    const draft = await draftRow(d.id);
    expect(draft).toMatchObject({ status: "sent", approvalId: approved.id });
    const sent = await messageRow(draft.sentMessageId!);
    expect(sent.status).toBe("captured");
    const bytes = await readSource(sent.id);
    const action = approved.action as { rfc822_sha256: string; message: string };
    expect(action.message).toBe(sent.id);
    expect(action.rfc822_sha256).toBe(sha(bytes));
    // The receipt is signed over the action's hash: it binds those bytes.
    expect(approved.receipt).toBeTruthy();
    const jwks = (await api(`/.well-known/jwks.json?workspace_id=${workspace.id}`)).json;
    const verified = await verifyReceipt(approved.receipt!, jwks, workspace.id);
    expect(verified).toMatchObject({ approval_id: approved.id, status: "approved", decided_by: [person.member.id], action_sha256: actionHash(approved.action as Record<string, unknown>) });
  });

  it("an edit after the approval was requested cancels it (its bytes are discarded, never sent); approving then binds and sends the new bytes", async () => {
    const { inbox, key, person, create, approveAndSend } = await setup();
    const d = await create();
    // The agent's send is held for a person.
    const held = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    expect(held.status).toBe(202);
    const oldApproval = held.json.approval_id as string;
    const oldBytes = await readSource(held.json.id);
    let draft = await draftRow(d.id);
    expect(draft).toMatchObject({ status: "sent", approvalId: oldApproval });

    // A stale version changes nothing.
    await expect(editDraftAsPerson(person.actor, d.id, draft.version - 1, { text: "stale" })).rejects.toMatchObject({ code: "conflict" });
    expect((await (await db()).select().from(approvals).where(eq(approvals.id, oldApproval)))[0]!.status).toBe("pending");

    const edited = await editDraftAsPerson(person.actor, d.id, draft.version, { text: "We refunded 150 EUR." });
    expect(edited).toMatchObject({ status: "draft", approvalId: null, sentMessageId: null, text: "We refunded 150 EUR." });
    expect((await (await db()).select().from(approvals).where(eq(approvals.id, oldApproval)))[0]!.status).toBe("cancelled");
    expect((await messageRow(held.json.id)).status).toBe("discarded");
    // The old approval cannot release anything now, on any page.
    await expect(decideApproval(person.actor, oldApproval, "approve")).rejects.toMatchObject({ code: "conflict" });

    const approved = await approveAndSend(d.id, edited.version);
    expect(approved.status).toBe("approved");
    expect(approved.id).not.toBe(oldApproval);
    draft = await draftRow(d.id);
    const sent = await messageRow(draft.sentMessageId!);
    const bytes = await readSource(sent.id);
    expect((approved.action as { rfc822_sha256: string }).rfc822_sha256).toBe(sha(bytes));
    expect(bytes.toString("latin1")).toContain("150 EUR");
    expect(sha(bytes)).not.toBe(sha(oldBytes));
    expect((await outbound(inbox.id)).map((m) => m.status).sort()).toEqual(["captured", "discarded"]);
    // Decided and sent: no more edits.
    await expect(editDraftAsPerson(person.actor, d.id, draft.version, { text: "late" })).rejects.toMatchObject({ code: "conflict" });
  });

  it("a draft waiting for its approval is approved on its page: that approval, at the version read", async () => {
    const { key, person, create, approveAndSend } = await setup();
    const d = await create();
    const held = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    const draft = await draftRow(d.id);
    await expect(prepareDraftApproval(person.actor, d.id, draft.version - 1)).rejects.toMatchObject({ code: "conflict" });
    const approved = await approveAndSend(d.id, draft.version);
    expect(approved.id).toBe(held.json.approval_id);
    expect((await messageRow(held.json.id)).status).toBe("captured");
  });

  it("edits racing approvals of the same held draft: either the approval sends the bytes it names, or the edit cancels it; never both", async () => {
    const { key, person, create } = await setup();
    for (let round = 0; round < 6; round++) {
      const d = await create({ text: `Round ${round}` });
      const held = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
      const approvalId = held.json.approval_id as string;
      const heldBytes = sha(await readSource(held.json.id));
      const version = (await draftRow(d.id)).version;
      const [approve, editing] = await Promise.allSettled([decideApproval(person.actor, approvalId, "approve"), editDraftAsPerson(person.actor, d.id, version, { text: `Edited ${round}` })]);
      expect([approve.status, editing.status].filter((s) => s === "fulfilled")).toHaveLength(1);
      const [approval] = await (await db()).select().from(approvals).where(eq(approvals.id, approvalId));
      const message = await messageRow(held.json.id);
      const draft = await draftRow(d.id);
      if (approve.status === "fulfilled") {
        expect(approval!.status).toBe("approved");
        expect(message.status).toBe("captured");
        expect(sha(await readSource(message.id))).toBe(heldBytes);
        expect(draft).toMatchObject({ status: "sent", text: `Round ${round}` });
      } else {
        expect(approval!.status).toBe("cancelled");
        expect(message.status).toBe("discarded");
        expect(draft).toMatchObject({ status: "draft", text: `Edited ${round}` });
      }
    }
  });

  it("ten racing Approve and send clicks on one draft hold it once: one approval, one held message", async () => {
    const { inbox, person, create } = await setup();
    const d = await create();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => prepareDraftApproval(person.actor, d.id, d.version)));
    const ok = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof prepareDraftApproval>>> => r.status === "fulfilled");
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.value.approvalId)).size).toBe(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "conflict" });
    const held = await outbound(inbox.id);
    expect(held.map((m) => m.status)).toEqual(["pending_approval"]);
    expect(held[0]!.approvalId).toBe(ok[0]!.value.approvalId);
    expect(await draftRow(d.id)).toMatchObject({ status: "sent", approvalId: ok[0]!.value.approvalId });
  });

  it("without a policy the page sends as written; Approve and send still works, and a policy of two keeps it pending for a second person", async () => {
    const { workspace, person, create, approveAndSend } = await setup(false);
    const d = await create();
    expect(await draftNeedsApproval(person.actor, await draftRow(d.id))).toBeNull();
    const { message } = await sendStoredDraft(person.actor, d.id, d.version);
    expect(message.status).toBe("captured");

    await createPolicy(operatorActor(workspace.id), { name: "Two people", action_class: "email.send", recipient_domain: "@customer.test", required_approvals: 2 });
    const d2 = await create();
    const first = await approveAndSend(d2.id, d2.version);
    expect(first.status).toBe("pending");
    expect((await messageRow((await draftRow(d2.id)).sentMessageId!)).status).toBe("pending_approval");
    const second = await newMember(workspace.id, "admin");
    const done = await decideApproval(second.actor, first.id, "approve");
    expect(done.status).toBe("approved");
    expect((await messageRow((await draftRow(d2.id)).sentMessageId!)).status).toBe("captured");
  });
});
