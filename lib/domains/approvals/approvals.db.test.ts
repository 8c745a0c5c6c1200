// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { compactVerify, createLocalJWKSet } from "jose";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { approvals, auditEntries, webhookEvents } from "../../../db/schema";
import { operatorActor } from "../../platform/actor";
import { decideApproval } from "./decide-approval";
import { expireApprovals } from "./approvals";
import { createPolicy } from "./policies";
import { approvalSchema } from "./schemas";
import { evidenceHash, RECEIPT_TYPE, summaryHash } from "./receipts";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "payments");
  const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
  return { workspace, agent, key };
}

const request = (key: string, body: Record<string, unknown>) => api("/api/v1/approvals", { key, body });

describe("approvals", () => {
  it("an agent requests, a member approves, the long-poll returns at once with a receipt that verifies offline", async () => {
    const { workspace, agent, key } = await setup();
    const approver = await newMember(workspace.id, "approver");
    const evidence = { refund: { order: "A-1", amount: 120 }, html: "<script>alert(1)</script>" };
    const created = await request(key, { summary: "Refund order A-1 (120 EUR)", evidence, action_class: "refund", amount: 120, currency: "eur" });
    expect(created.status).toBe(201);
    expect(approvalSchema.strict().parse(created.json)).toMatchObject({ status: "pending", agent_id: agent.id, required_approvals: 1, currency: "EUR", evidence });

    // The most a poll may wait (30 s): one ended by its own deadline would answer after this test's
    // timeout, so an answer at all is the decision ending it.
    const poll = api(`/api/v1/approvals/${created.json.id}?wait=30`, { key });
    await new Promise((r) => setTimeout(r, 300));
    await decideApproval(approver.actor, created.json.id, "approve", "ok, customer verified");
    const decided = await poll;
    expect(decided.json).toMatchObject({ status: "approved", approvals: 1, decisions: [{ member_id: approver.member.id, decision: "approve", note: "ok, customer verified" }] });

    const jwks = await api(`/.well-known/jwks.json?workspace_id=${workspace.id}`);
    const { payload, protectedHeader } = await compactVerify(decided.json.receipt, createLocalJWKSet(jwks.json));
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: RECEIPT_TYPE });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({
      approval_id: created.json.id,
      workspace_id: workspace.id,
      agent_id: agent.id,
      status: "approved",
      decided_by: [approver.member.id],
      decided_at: decided.json.decided_at,
      required_approvals: 1,
      action_class: "refund",
      amount: 120,
      currency: "EUR",
      action_sha256: null,
      summary_sha256: summaryHash("Refund order A-1 (120 EUR)"),
      evidence_sha256: evidenceHash(evidence),
      expires_at: created.json.expires_at,
    });

    const db = await getDb();
    const events = await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id)).orderBy(webhookEvents.createdAt);
    expect(events.map((e) => e.type)).toEqual(["approval.requested", "approval.resolved"]);
    expect(events[1]!.data).toMatchObject({ status: "approved", decided_by: [approver.member.id], note: "ok, customer verified" });
  });

  it("quorum needs that many distinct members; one denial denies; deny needs a note", async () => {
    const { workspace, key } = await setup();
    const a = await newMember(workspace.id, "approver");
    const b = await newMember(workspace.id, "admin");
    const two = (await request(key, { summary: "Deploy to production", evidence: { commit: "abc" }, required_approvals: 2 })).json;
    await decideApproval(a.actor, two.id, "approve");
    await expect(decideApproval(a.actor, two.id, "approve")).rejects.toMatchObject({ code: "conflict" });
    expect((await api(`/api/v1/approvals/${two.id}`, { key })).json).toMatchObject({ status: "pending", approvals: 1 });
    await decideApproval(b.actor, two.id, "approve");
    expect((await api(`/api/v1/approvals/${two.id}`, { key })).json).toMatchObject({ status: "approved", approvals: 2 });

    const denied = (await request(key, { summary: "Delete the database", evidence: {}, required_approvals: 3 })).json;
    await expect(decideApproval(a.actor, denied.id, "deny", "  ")).rejects.toMatchObject({ code: "validation_failed" });
    await decideApproval(a.actor, denied.id, "approve");
    await decideApproval(b.actor, denied.id, "deny", "no backups yet");
    expect((await api(`/api/v1/approvals/${denied.id}`, { key })).json.status).toBe("denied");
    await expect(decideApproval(a.actor, denied.id, "approve")).rejects.toMatchObject({ code: "conflict" });
  });

  it("a viewer cannot decide, a member of another workspace cannot see it, and no API route decides", async () => {
    const { workspace, key } = await setup();
    const viewer = await newMember(workspace.id, "viewer");
    const appr = (await request(key, { summary: "x", evidence: {} })).json;
    await expect(decideApproval(viewer.actor, appr.id, "approve")).rejects.toMatchObject({ code: "forbidden" });
    const other = await newWorkspace();
    const outsider = await newMember(other.workspace.id, "owner");
    await expect(decideApproval(outsider.actor, appr.id, "approve")).rejects.toMatchObject({ code: "not_found" });
    for (const path of ["approve", "deny", "decide"]) {
      expect((await api(`/api/v1/approvals/${appr.id}/${path}`, { key, body: {} })).status).toBe(404);
    }
    expect((await api(`/api/v1/approvals/${appr.id}`, { key })).json.status).toBe("pending");
  });

  it("expires: pending past its time reads as expired at once, and the job seals it with a receipt", async () => {
    const { workspace, key } = await setup();
    const owner = await newMember(workspace.id, "owner");
    const appr = (await request(key, { summary: "short-lived", evidence: {}, expires_in_seconds: 60 })).json;
    const db = await getDb();
    await db.update(approvals).set({ expiresAt: sql`clock_timestamp() - interval '1 second'` }).where(eq(approvals.id, appr.id));
    expect((await api(`/api/v1/approvals/${appr.id}`, { key })).json.status).toBe("expired");
    await expect(decideApproval(owner.actor, appr.id, "approve")).rejects.toMatchObject({ code: "conflict" });
    // Its count would include other files' approvals, and another file's run may expire this one first (one database): this approval's outcome is checked below.
    await expireApprovals();
    const after = (await api(`/api/v1/approvals/${appr.id}`, { key })).json;
    expect(after).toMatchObject({ status: "expired", receipt: expect.stringMatching(/^ey/) });
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "approval.expired")));
    expect(audit).toHaveLength(1);
  });

  it("the requesting agent can cancel; another agent cannot see it", async () => {
    const { workspace, key } = await setup();
    const appr = (await request(key, { summary: "cancel me", evidence: {} })).json;
    const other = await newAgent(workspace.id, "other");
    const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id });
    expect((await api(`/api/v1/approvals/${appr.id}/cancel`, { key: otherKey, method: "POST" })).status).toBe(404);
    const cancelled = await api(`/api/v1/approvals/${appr.id}/cancel`, { key, method: "POST" });
    expect(cancelled.json).toMatchObject({ status: "cancelled" });
    expect((await api(`/api/v1/approvals?status=cancelled`, { key })).json.data.map((a: { id: string }) => a.id)).toEqual([appr.id]);
  });

  it("policies: check tells whether approval is needed, and requests get the rule's quorum and expiry", async () => {
    const { workspace, agent, key } = await setup();
    await createPolicy(operatorActor(workspace.id), { name: "Large refunds", action_class: "refund", min_amount: 100, required_approvals: 2, expires_in_seconds: 3600 });
    await createPolicy(operatorActor(workspace.id), { name: "This agent's deploys", action_class: "deploy", agent_id: agent.id, required_approvals: 1, expires_in_seconds: 600 });

    const check = (body: Record<string, unknown>) => api("/api/v1/approvals/check", { key, body });
    expect((await check({ action_class: "refund", amount: 50 })).json).toEqual({ object: "approval_check", required: false, policy: null });
    expect((await check({ action_class: "refund", amount: 500 })).json).toMatchObject({ required: true, policy: { name: "Large refunds", required_approvals: 2 } });
    expect((await check({ action_class: "deploy" })).json).toMatchObject({ required: true, policy: { name: "This agent's deploys" } });
    expect((await check({ action_class: "email" })).json.required).toBe(false);

    const big = (await request(key, { summary: "Refund 500", evidence: {}, action_class: "refund", amount: 500, required_approvals: 1 })).json;
    expect(big.required_approvals).toBe(2); // the policy is a floor
    expect(Date.parse(big.expires_at) - Date.now()).toBeLessThanOrEqual(3600_000);
  });

  it("refuses bad requests with every bad field, changing nothing", async () => {
    const { key } = await setup();
    const res = await request(key, { summary: "two\nlines", evidence: { blob: "x".repeat(40_000) }, amount: -1, currency: "euro", required_approvals: 11 });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { field: string }) => e.field).sort()).toEqual(["amount", "currency", "evidence", "required_approvals", "summary"]);
    const missing = await request(key, { summary: "no evidence" });
    expect(missing.json.errors.map((e: { field: string }) => e.field)).toEqual(["evidence"]);
    expect((await api("/api/v1/approvals", { key })).json.data).toEqual([]);
  });
});

describe("notifications", () => {
  it("mail the owners and approvers once, after the request, with a link to the queue that cannot decide", async () => {
    const { notifyApprovers } = await import("./notify-approvers");
    const { outboundMail } = await import("../../../db/schema");
    const { workspace, key } = await setup();
    await newMember(workspace.id, "owner", "boss@team.test");
    await newMember(workspace.id, "approver", "checker@team.test");
    await newMember(workspace.id, "viewer", "watcher@team.test");
    const appr = (await request(key, { summary: "Refund order B-7", evidence: { order: "B-7" }, action_class: "refund", amount: 30, currency: "EUR" })).json;
    await notifyApprovers();
    expect(await notifyApprovers()).toBe(0); // once
    const db = await getDb();
    const mail = await db.select().from(outboundMail).where(eq(outboundMail.workspaceId, workspace.id));
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ kind: "approval_requested", status: "captured", subject: "Approval needed: Refund order B-7" });
    expect([...mail[0]!.to].sort()).toEqual(["boss@team.test", "checker@team.test"]);
    expect(mail[0]!.text).toContain("/approvals");
    expect(mail[0]!.text).not.toContain(appr.id); // no link that names, let alone decides, the approval
    expect(mail[0]!.text).not.toMatch(/approve\?|decide\?|token=/i);
  });
});

describe("approval traces", () => {
  it("a member's decision and the resolution join the trace the agent asked in", async () => {
    const { workspace, key } = await setup();
    const approver = await newMember(workspace.id, "approver");
    const created = await api("/api/v1/approvals", { key, body: { summary: "Traced request", evidence: {} }, headers: { "x-trace-id": "trace-approval-1" } });
    await decideApproval(approver.actor, created.json.id, "approve", "ok");
    const audit = await (await getDb()).select().from(auditEntries).where(eq(auditEntries.resourceId, created.json.id)).orderBy(auditEntries.id);
    expect(audit.map((a) => [a.action, a.traceId])).toEqual([
      ["approval.requested", "trace-approval-1"],
      ["approval.approved_by_member", "trace-approval-1"],
      ["approval.approved", "trace-approval-1"],
    ]);
    const [resolved] = await (await getDb()).select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "approval.resolved")));
    expect(resolved!.traceId).toBe("trace-approval-1");
  });
});
