import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { approvals, auditEntries, outboundMail, workspaces } from "../../../db/schema";
import { decideApproval } from "./decide-approval";
import { escalateApprovals, setEscalation } from "./escalation";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", AUTH_URL: "https://agentdraft.example" });
const { api } = serveApiForTests();

async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "payments");
  const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
  const owner = await newMember(workspace.id, "owner");
  return { workspace, agent, key, owner };
}

const ask = async (key: string, body: Record<string, unknown> = {}) => {
  const res = await api("/api/v1/approvals", { key, body: { summary: "Refund order A-7 (900 EUR)", evidence: { order: "A-7" }, ...body } });
  expect(res.status).toBe(201);
  return res.json as { id: string };
};

/** Moves an approval's creation back in time, as if it had waited that long. */
const age = async (id: string, seconds: number) =>
  (await getDb()).update(approvals).set({ createdAt: sql`now() - make_interval(secs => ${seconds})` }).where(eq(approvals.id, id));

const escalationMail = async (workspaceId: string) =>
  (await getDb()).select().from(outboundMail).where(and(eq(outboundMail.workspaceId, workspaceId), eq(outboundMail.kind, "approval_escalated")));

describe("approval escalation", () => {
  it("is a workspace setting admins and owners change (audited), validated, and can be turned off", async () => {
    const { workspace, owner } = await setup();
    const approver = await newMember(workspace.id, "approver");
    await expect(setEscalation(approver.member, { after_minutes: "30", role: "admin" })).rejects.toThrow(/admin/);
    await expect(setEscalation(owner.member, { after_minutes: "0", role: "admin" })).rejects.toThrow(/at least 1 minute/);
    await expect(setEscalation(owner.member, { after_minutes: "30" })).rejects.toThrow(/choose who is told/);
    await expect(setEscalation(owner.member, { after_minutes: "30", role: "viewer" as never })).rejects.toThrow();
    const on = await setEscalation(owner.member, { after_minutes: "30", role: "admin" });
    expect(on).toMatchObject({ approvalEscalationSeconds: 1800, approvalEscalationRole: "admin" });
    const off = await setEscalation(owner.member, { after_minutes: "", role: "admin" });
    expect(off).toMatchObject({ approvalEscalationSeconds: null, approvalEscalationRole: null });
    const audit = await (await getDb()).select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "workspace.escalation_set"))).orderBy(auditEntries.id);
    expect(audit.map((a) => a.summary)).toEqual([{ after_seconds: 1800, role: "admin" }, { off: true }]);
    // The database refuses half a setting even if code were wrong.
    await expect((await getDb()).update(workspaces).set({ approvalEscalationSeconds: 600 }).where(eq(workspaces.id, workspace.id))).rejects.toThrow();
  });

  it("mails the escalation role once, when still pending past the delay, and skips who already decided", async () => {
    const { workspace, key, owner } = await setup();
    const adminA = await newMember(workspace.id, "admin", `admin-a-${workspace.id}@team.test`);
    const adminB = await newMember(workspace.id, "admin", `admin-b-${workspace.id}@team.test`);
    await newMember(workspace.id, "approver", `approver-${workspace.id}@team.test`);
    await setEscalation(owner.member, { after_minutes: "10", role: "admin" });

    const waiting = await ask(key, { required_approvals: 2 });
    const fresh = await ask(key, { summary: "Fresh request" });
    const decidedLong = await ask(key, { summary: "Already decided" });
    const expiredLong = await ask(key, { summary: "Expired", expires_in_seconds: 60 });
    await decideApproval(adminA.actor, waiting.id, "approve", "fine by me");
    await decideApproval(adminA.actor, decidedLong.id, "deny", "no");
    for (const id of [waiting.id, decidedLong.id]) await age(id, 11 * 60);
    await (await getDb()).update(approvals).set({ createdAt: sql`now() - interval '11 minutes'`, expiresAt: sql`now() - interval '1 second'` }).where(eq(approvals.id, expiredLong.id));

    // Many runners at once: exactly one escalation. Kept to this workspace: the counts would include
    // other files' approvals (one database), and would take theirs from under them.
    const mine = { workspaceId: workspace.id };
    const counts = await Promise.all(Array.from({ length: 6 }, () => escalateApprovals(mine)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await escalateApprovals(mine)).toBe(0);

    const rows = await (await getDb()).select().from(approvals).where(eq(approvals.workspaceId, workspace.id));
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(waiting.id)!.escalatedAt).toBeInstanceOf(Date);
    for (const id of [fresh.id, decidedLong.id, expiredLong.id]) expect(byId.get(id)!.escalatedAt).toBeNull();

    const mails = await escalationMail(workspace.id);
    expect(mails).toHaveLength(1);
    // adminA already approved: only adminB is told; not the approver, not the owner.
    expect(mails[0]!.to).toEqual([adminB.member.email]);
    expect(mails[0]!.subject).toBe("Still waiting for approval: Refund order A-7 (900 EUR)");
    expect(mails[0]!.text).toContain("more than 10 min");
    expect(mails[0]!.text).toContain("https://agentdraft.example/approvals");
    expect(mails[0]!.text).not.toMatch(/approve\?|decide\?|\/api\//);

    const audit = await (await getDb()).select().from(auditEntries).where(and(eq(auditEntries.resourceId, waiting.id), eq(auditEntries.action, "approval.escalated")));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: "system", summary: { role: "admin", after_seconds: 600 } });

    const read = await api(`/api/v1/approvals/${waiting.id}`, { key });
    expect(read.json).toMatchObject({ status: "pending", escalated_at: expect.any(String) });
  });

  it("does nothing in a workspace without the setting", async () => {
    const { workspace, key } = await setup();
    await newMember(workspace.id, "admin");
    const a = await ask(key);
    await age(a.id, 40 * 24 * 3600);
    await escalateApprovals({ workspaceId: workspace.id });
    expect((await (await getDb()).select().from(approvals).where(eq(approvals.id, a.id)))[0]!.escalatedAt).toBeNull();
    expect(await escalationMail(workspace.id)).toEqual([]);
  });
});
