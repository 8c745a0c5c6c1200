// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { approvals, auditEntries, webhookEvents } from "../../../db/schema";
import { decideApproval } from "./decide-approval";
import { createPolicy } from "./policies";
import { operatorActor } from "../../platform/actor";
import { approvalSchema } from "./schemas";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const refund = { type: "refund", order: 8812, amount: 120, currency: "EUR" };

async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "payments");
  const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
  const approver = await newMember(workspace.id, "approver");
  const ask = async (action: Record<string, unknown> | null = refund, extra: Record<string, unknown> = {}) => {
    const res = await api("/api/v1/approvals", { key, body: { summary: "Refund order 8812", evidence: { order: 8812 }, action: action ?? undefined, action_class: "refund", amount: 120, currency: "EUR", ...extra } });
    expect(res.status).toBe(201);
    return res.json as { id: string; action_sha256: string };
  };
  const approved = async (action: Record<string, unknown> | null = refund) => {
    const a = await ask(action);
    await decideApproval(approver.actor, a.id, "approve");
    return a;
  };
  const consume = (id: string, body: Record<string, unknown>, as = key) => api(`/api/v1/approvals/${id}/consume`, { key: as, body });
  return { workspace, agent, key, approver, ask, approved, consume };
}

describe("POST /v1/approvals/{id}/consume", () => {
  it("spends an approved approval once, on the exact action (any key order); the second consume is 409 approval_consumed", async () => {
    const { workspace, key, approved, consume } = await setup();
    const a = await approved();
    const first = await consume(a.id, { action: { currency: "EUR", amount: 120, order: 8812, type: "refund" } }, key);
    expect(first.status).toBe(200);
    expect(approvalSchema.strict().parse(first.json)).toMatchObject({ status: "approved", consumed: true });
    const again = await consume(a.id, { action: refund });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: "approval_consumed", consumed_at: first.json.consumed_at });
    const read = (await api(`/api/v1/approvals/${a.id}`, { key })).json;
    expect(read).toMatchObject({ consumed: true, consumed_at: first.json.consumed_at });

    const db = await getDb();
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, a.id), eq(auditEntries.action, "approval.consumed")));
    expect(audit).toHaveLength(1);
    const events = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "approval.consumed")));
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ approval_id: a.id, action_sha256: a.action_sha256 });
  });

  it("refuses a different action with action_mismatch, and leaves it unspent", async () => {
    const { approved, consume } = await setup();
    const a = await approved();
    const wrong = await consume(a.id, { action: { ...refund, amount: 1200 } });
    expect(wrong.status).toBe(409);
    expect(wrong.json).toMatchObject({ code: "action_mismatch", approved_action_sha256: a.action_sha256 });
    expect((await consume(a.id, {})).json.code).toBe("action_mismatch");
    expect((await consume(a.id, { action: refund })).status).toBe(200);
  });

  it("refuses pending, denied, cancelled and expired approvals, each with its own code", async () => {
    const { key, approver, ask, approved, consume } = await setup();
    const pending = await ask();
    expect((await consume(pending.id, { action: refund })).json).toMatchObject({ code: "approval_not_approved", approval_status: "pending" });
    const denied = await ask();
    await decideApproval(approver.actor, denied.id, "deny", "not this customer");
    expect((await consume(denied.id, { action: refund })).json).toMatchObject({ code: "approval_not_approved", approval_status: "denied" });
    const cancelled = await ask();
    await api(`/api/v1/approvals/${cancelled.id}/cancel`, { key, method: "POST" });
    expect((await consume(cancelled.id, { action: refund })).json).toMatchObject({ code: "approval_not_approved", approval_status: "cancelled" });

    const expired = await approved();
    const db = await getDb();
    await db.update(approvals).set({ expiresAt: sql`clock_timestamp() - interval '1 second'` }).where(eq(approvals.id, expired.id));
    const late = await consume(expired.id, { action: refund });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("approval_expired");
    const pendingExpired = await ask();
    await db.update(approvals).set({ expiresAt: sql`clock_timestamp() - interval '1 second'` }).where(eq(approvals.id, pendingExpired.id));
    expect((await consume(pendingExpired.id, { action: refund })).json.code).toBe("approval_expired");
  });

  it("another workspace's approval, or another agent's for an agent-bound key, is 404; a workspace-wide key may spend it", async () => {
    const mine = await setup();
    const theirs = await setup();
    const a = await theirs.approved();
    expect((await mine.consume(a.id, { action: refund })).status).toBe(404);
    const other = await newAgent(theirs.workspace.id, "other");
    const { key: otherAgentKey } = await newKey(theirs.workspace.id, { agent_id: other.id, scopes: ["approvals"] });
    expect((await theirs.consume(a.id, { action: refund }, otherAgentKey)).status).toBe(404);
    const { key: wide } = await newKey(theirs.workspace.id, { scopes: ["approvals"] });
    expect((await theirs.consume(a.id, { action: refund }, wide)).status).toBe(200);
  });

  it("spends only when the approval meets the rule that gates its action now: a two-approver rule added after one vote refuses it with approval_insufficient", async () => {
    const { workspace, approved, consume } = await setup();
    const a = await approved();
    await createPolicy(operatorActor(workspace.id), { name: "Large refunds", action_class: "refund", min_amount: 100, required_approvals: 2 });
    const refused = await consume(a.id, { action: refund });
    expect(refused.status).toBe(409);
    expect(refused.json, refused.text).toMatchObject({ code: "approval_insufficient", required_approvals: 2, approvals: 1, policy: { name: "Large refunds" } });
    // The agent cannot open a one-vote approval for it now either: the rule sets the floor.
    const again = await approved();
    expect((await consume(again.id, { action: refund })).json.code).toBe("approval_not_approved");
    const second = await newMember(workspace.id, "approver");
    await decideApproval(second.actor, again.id, "approve");
    expect((await consume(again.id, { action: refund })).status).toBe(200);
  });

  it("judges an approval by its action's own type and amount, whatever the agent labelled it (#48)", async () => {
    const { workspace, key, approver, consume } = await setup();
    await createPolicy(operatorActor(workspace.id), { name: "Refunds", action_class: "refund", required_approvals: 2 });
    const open = (extra: Record<string, unknown>) =>
      api("/api/v1/approvals", { key, body: { summary: "Refund order 8812", evidence: { order: 8812 }, action: refund, ...extra } });
    // No label: the action's type is its class, and the rule's quorum applies.
    const unlabelled = await open({});
    expect(unlabelled.status, unlabelled.text).toBe(201);
    expect(unlabelled.json).toMatchObject({ action_class: "refund", amount: 120, required_approvals: 2 });
    await decideApproval(approver.actor, unlabelled.json.id, "approve");
    // One vote of the two the rule asks: still pending, not spendable.
    const short = await consume(unlabelled.json.id, { action: refund });
    expect(short.status).toBe(409);
    expect(short.json).toMatchObject({ code: "approval_not_approved", approval_status: "pending" });
    // A label that contradicts the action is refused, and nothing is opened.
    for (const extra of [{ action_class: "email" }, { amount: 5 }]) {
      const r = await open(extra);
      expect(r.status, r.text).toBe(400);
      expect(r.json.code).toBe("validation_failed");
    }
    // An approval labelled otherwise than its action (opened before the server judged by the action):
    // refused at consume whatever its votes, and left unspent.
    const db = await getDb();
    const legacy = await open({});
    await db.update(approvals).set({ actionClass: "misc" }).where(eq(approvals.id, legacy.json.id));
    await decideApproval(approver.actor, legacy.json.id, "approve");
    await decideApproval((await newMember(workspace.id, "approver")).actor, legacy.json.id, "approve");
    const mislabelled = await consume(legacy.json.id, { action: refund });
    expect(mislabelled.status).toBe(409);
    expect(mislabelled.json).toMatchObject({ code: "approval_insufficient", action_class: "refund", approval_action_class: "misc" });
    expect((await db.select().from(approvals).where(eq(approvals.id, legacy.json.id)))[0]!.consumedAt).toBeNull();
    // Two votes on a rightly classed approval: spent.
    await decideApproval((await newMember(workspace.id, "approver")).actor, unlabelled.json.id, "approve");
    expect((await consume(unlabelled.json.id, { action: refund })).status).toBe(200);
  });

  it("50 concurrent consumes: exactly one succeeds, the others get approval_consumed", async () => {
    const { approved, consume } = await setup();
    const a = await approved();
    const results = await Promise.all(Array.from({ length: 50 }, () => consume(a.id, { action: refund })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.json.code === "approval_consumed")).toHaveLength(49);
    const audit = await (await getDb()).select().from(auditEntries).where(and(eq(auditEntries.resourceId, a.id), eq(auditEntries.action, "approval.consumed")));
    expect(audit).toHaveLength(1);
  });

  it("an approval that named no action is spent without one; actions are bounded in size and depth", async () => {
    const { approved, consume } = await setup();
    const plain = await approved(null);
    expect((await consume(plain.id, { action: refund })).json.code).toBe("action_mismatch");
    expect((await consume(plain.id, {})).status).toBe(200);
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 40; i++) deep = { nested: deep };
    const tooDeep = await api("/api/v1/approvals", { key: (await setup()).key, body: { summary: "deep", evidence: {}, action: deep } });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json.errors[0].field).toMatch(/^action\./);
    const big = await api("/api/v1/approvals", { key: (await setup()).key, body: { summary: "big", evidence: {}, action: { blob: "x".repeat(9000) } } });
    expect(big.status).toBe(400);
    expect(big.json.errors.map((e: { field: string }) => e.field)).toEqual(["action"]);
  });
});
