import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { approvals, auditEntries } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { setApprovalLimits } from "../workspaces/approval-limits";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const operator = (workspaceId: string) => ({ type: "operator" as const, workspaceId, name: "cli" });
const ask = (key: string, n: number) => api("/api/v1/approvals", { key, body: { summary: `Ask ${n}`, evidence: { n } } });

async function pendingOf(workspaceId: string, agentId: string | null, keyId?: string) {
  const db = await getDb();
  const rows = await db.select().from(approvals).where(and(eq(approvals.workspaceId, workspaceId), eq(approvals.status, "pending")));
  return rows.filter((r) => r.agentId === agentId && (keyId === undefined || r.apiKeyId === keyId)).length;
}

describe("pending approvals per agent", () => {
  it("defaults to 20 a workspace", async () => {
    const { workspace } = await newWorkspace();
    expect(workspace.maxPendingApprovalsPerAgent).toBe(20);
  });

  it("racing asks of one agent never open more than the cap (429 too_many_pending_approvals beyond); another agent is unaffected; cancelling frees a place", async () => {
    const { workspace } = await newWorkspace();
    await setApprovalLimits(operator(workspace.id), { max_pending_approvals_per_agent: 4 });
    const flooder = await newAgent(workspace.id, "flooder");
    const other = await newAgent(workspace.id, "other");
    const { key } = await newKey(workspace.id, { agent_id: flooder.id });
    const { key: key2 } = await newKey(workspace.id, { agent_id: flooder.id }); // a second key of the same agent shares its cap
    const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id });

    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => ask(i % 2 ? key : key2, i)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(4).fill(201), ...Array(12).fill(429)]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json).toMatchObject({ code: "too_many_pending_approvals", limit: 4 });
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(await pendingOf(workspace.id, flooder.id)).toBe(4);

    // Another agent has its own places, even while this one is full.
    const others = await Promise.all(Array.from({ length: 3 }, (_, i) => ask(otherKey, i)));
    expect(others.map((a) => a.status)).toEqual([201, 201, 201]);

    // Cancelling one frees exactly one place.
    const first = answers.find((a) => a.status === 201)!;
    expect((await api(`/api/v1/approvals/${first.json.id}/cancel`, { key, method: "POST" })).status).toBe(200);
    const again = await Promise.all([ask(key, 100), ask(key, 101), ask(key2, 102)]);
    expect(again.map((a) => a.status).sort()).toEqual([201, 429, 429]);
    expect(await pendingOf(workspace.id, flooder.id)).toBe(4);
  });

  it("counts a workspace-wide key on its own, and the refusal writes nothing", async () => {
    const { workspace } = await newWorkspace();
    await setApprovalLimits(operator(workspace.id), { max_pending_approvals_per_agent: 2 });
    const { key, row } = await newKey(workspace.id);
    const { key: wide2 } = await newKey(workspace.id);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => ask(key, i)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
    expect(await pendingOf(workspace.id, null, row.id)).toBe(2);
    expect((await ask(wide2, 9)).status).toBe(201);
    const db = await getDb();
    const audited = (await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id))).filter((e) => e.action === "approval.requested");
    expect(audited).toHaveLength(3);
  });
});
