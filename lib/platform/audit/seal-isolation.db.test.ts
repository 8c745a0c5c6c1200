// @suite pooled
import { describe, expect, it, onTestFinished } from "vitest";
import { and, eq, isNull, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { sealWorkspace } from "../../../test/helpers/audit";
import { openTransaction } from "../../../test/helpers/open-transaction";
import { getDb } from "../../../db/client";
import { auditEntries } from "../../../db/schema";
import { sealAuditChain, sealBeforeRead } from "./seal-chain";

const { api } = serveApiForTests();
const onPostgres = process.env.AGENTDRAFT_TEST_DB === "postgres";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Settles within `ms`, or says it did not. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then((v) => ({ settled: true as const, value: v })), sleep(ms).then(() => ({ settled: false as const }))]);

const auditInsert = `insert into audit_entries (id, workspace_id, at, actor_type, actor_id, action, resource_type, resource_id, summary, outcome)
  values ('aud_' || md5(random()::text), $1, now(), 'operator', 'test', 'test.open', 'agent', 'none', '{}'::jsonb, 'succeeded')`;

describe.runIf(onPostgres)("no other workspace holds back a workspace's audit trail", () => {
  it("seals, lists and verifies a workspace's entries while a transaction in another workspace, and one in none, stay open", async () => {
    const { workspace: a } = await newWorkspace();
    const { workspace: b } = await newWorkspace();
    const { key } = await newKey(a.id);
    onTestFinished(await openTransaction(["select txid_current()"]));
    onTestFinished(await openTransaction([auditInsert, [b.id]]));

    const created = await api("/api/v1/agents", { key, body: { name: "while-others-are-open" } });
    expect(created.status).toBe(201);
    const list = await api(`/api/v1/audit?resource_id=${created.json.id}`, { key });
    expect(list.json.data.map((e: { action: string }) => e.action)).toEqual(["agent.created"]);
    const db = await getDb();
    const [left] = await db.select({ n: sql<number>`count(*)::int` }).from(auditEntries).where(and(eq(auditEntries.workspaceId, a.id), isNull(auditEntries.hash)));
    expect(left!.n).toBe(0);
    const verified = await api("/api/v1/audit/verify", { key });
    expect(verified.json).toMatchObject({ valid: true, head: { seq: 3 } }); // workspace, key, agent
  });

  it("one workspace's running sealer (its flood being chained) does not make another's audit list wait; its own readers do wait", async () => {
    const { workspace: a } = await newWorkspace();
    const { workspace: b } = await newWorkspace();
    const { key: keyA } = await newKey(a.id);
    const { key: keyB } = await newKey(b.id);
    await api("/api/v1/agents", { key: keyA, body: { name: "a-1" } });
    await api("/api/v1/agents", { key: keyB, body: { name: "b-1" } });
    // B's sealer mid-run, holding what sealing B holds: B's chain head (and the one lock sealing
    // took for the whole deployment before sealing was per workspace).
    const release = await openTransaction(
      ["insert into audit_heads (workspace_id, seq, hash) values ($1, 0, repeat('0', 64)) on conflict do nothing", [b.id]],
      ["select 1 from audit_heads where workspace_id = $1 for update", [b.id]],
      ["select pg_advisory_xact_lock(hashtext('agentdraft:audit-seal'))"],
    );
    onTestFinished(release);

    const listA = await within(api("/api/v1/audit", { key: keyA }), 10_000);
    expect(listA.settled).toBe(true);
    expect(listA.settled && listA.value.json.data.map((e: { action: string }) => e.action)).toContain("agent.created");
    const verifyA = await within(api("/api/v1/audit/verify", { key: keyA }), 10_000);
    expect(verifyA.settled && verifyA.value.json).toMatchObject({ valid: true });

    // B's own list waits for B's sealer, then shows B's entries chained.
    const listB = api("/api/v1/audit", { key: keyB });
    expect((await within(listB, 300)).settled).toBe(false);
    await release();
    expect((await listB).json.data.map((e: { action: string }) => e.action)).toContain("agent.created");
  });
});

describe("audit chains under concurrent appends in several workspaces", () => {
  it("every workspace's chain is one linear, valid chain of all its entries", async () => {
    const spaces = await Promise.all(Array.from({ length: 3 }, async () => {
      const { workspace } = await newWorkspace();
      return { workspace, key: (await newKey(workspace.id)).key };
    }));
    const writes = Promise.all(
      spaces.flatMap(({ key }) => Array.from({ length: 12 }, (_, i) => api("/api/v1/agents", { key, body: { name: `busy-${i}` } }))),
    );
    const seals = Promise.all(Array.from({ length: 12 }, async (_, i) => {
      await sleep(i * 15);
      return i % 3 === 0 ? sealAuditChain() : sealBeforeRead(spaces[i % spaces.length]!.workspace.id);
    }));
    const [written] = await Promise.all([writes, seals]);
    expect(written.every((r) => r.status === 201)).toBe(true);
    for (const { workspace, key } of spaces) {
      await sealWorkspace(workspace.id);
      const verified = await api("/api/v1/audit/verify", { key });
      expect(verified.json).toMatchObject({ valid: true, entries_checked: 14, head: { seq: 14 } }); // workspace, key, 12 agents
    }
  });
});
