// @suite pooled
import { describe, expect, it } from "vitest";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { sealWorkspace } from "../../../test/helpers/audit";
import { getDb } from "../../../db/client";
import { auditCheckpoints, auditEntries, auditHeads } from "../../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";
import { sealAuditWork } from "./seal-chain";
import { checkpointSource, CHECKPOINT_INTERVAL_MS, signCheckpoint } from "./checkpoints";
import { verifyChain } from "./verify-chain";
import { runCli } from "../../../cli/main";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

/** A workspace with a few audit entries, sealed, and a workspace-wide audit key. */
async function trail(entries = 4) {
  const { workspace } = await newWorkspace();
  for (let i = 0; i < entries; i++) await newAgent(workspace.id, `agent-${i}`);
  const { key } = await newKey(workspace.id, { scopes: ["audit"] });
  await sealWorkspace(workspace.id); // not one sealAuditChain(): another file's sealer may hold its lock (one database)
  return { workspace, key };
}

/**
 * What the app's database role could do on main, where it owns audit_entries and audit_heads:
 * switch their triggers off, change rows, switch them on again (one transaction).
 */
async function withTriggersOff(fn: (tx: Parameters<Parameters<Awaited<ReturnType<typeof getDb>>["transaction"]>[0]>[0]) => Promise<void>) {
  const db = await getDb();
  await db.transaction(async (tx) => {
    for (const t of ["audit_entries", "audit_heads", "audit_checkpoints"]) await tx.execute(sql.raw(`alter table ${t} disable trigger user`));
    await fn(tx);
    for (const t of ["audit_entries", "audit_heads", "audit_checkpoints"]) await tx.execute(sql.raw(`alter table ${t} enable trigger user`));
  });
}

/** Rewrites every entry of the workspace (the first one's summary changed) with freshly computed hashes, and the head to match. */
async function rewriteWholeChain(workspaceId: string) {
  const db = await getDb();
  const rows = await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspaceId)).orderBy(asc(auditEntries.seq));
  await withTriggersOff(async (tx) => {
    let prev = GENESIS_HASH;
    for (const [i, row] of rows.entries()) {
      const { prevHash: _p, hash: _h, position: _pos, txid: _t, ...fields } = row;
      const forged = i === 0 ? { ...fields, summary: { name: "nothing to see here" } } : fields;
      const hash = entryHash(prev, forged);
      await tx.update(auditEntries).set({ summary: forged.summary, prevHash: prev, hash }).where(eq(auditEntries.id, row.id));
      prev = hash;
    }
    await tx.update(auditHeads).set({ hash: prev }).where(eq(auditHeads.workspaceId, workspaceId));
  });
}

async function head(workspaceId: string) {
  const db = await getDb();
  const [row] = await db.select().from(auditHeads).where(eq(auditHeads.workspaceId, workspaceId));
  return row!;
}

describe("signed checkpoints anchor the audit chain", () => {
  it("a chain rewritten with the app role's powers is caught by verification against a checkpoint", async () => {
    const { workspace, key } = await trail();
    const signed = await signCheckpoint(workspace.id);
    const seq = signed!.seq;
    expect(signed).toMatchObject({ seq: (await head(workspace.id)).seq, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // A witness takes the checkpoint over the API.
    const exported = await api("/api/v1/audit/checkpoints", { key });
    expect(exported.status).toBe(200);
    const witness = exported.json.data[0].jws as string;
    expect(exported.json.data[0]).toMatchObject({ object: "audit_checkpoint", seq, hash: signed!.hash });

    await rewriteWholeChain(workspace.id);
    // The rewritten chain is internally consistent: only the checkpoint tells.
    const verified = await verifyChain(workspace.id);
    expect(verified).toMatchObject({ valid: false, first_broken: { reason: "checkpoint_mismatch", seq }, checkpoint: { seq, source: "database" } });
    const overApi = await api("/api/v1/audit/verify", { key });
    expect(overApi.json).toMatchObject({ valid: false, first_broken: { reason: "checkpoint_mismatch" } });

    // Deleting the stored checkpoints too hides it from the database alone; not from the witness.
    await withTriggersOff(async (tx) => {
      await tx.delete(auditCheckpoints).where(eq(auditCheckpoints.workspaceId, workspace.id));
    });
    expect((await verifyChain(workspace.id)).valid).toBe(true);
    const againstWitness = await api(`/api/v1/audit/verify?checkpoint=${encodeURIComponent(witness)}`, { key });
    expect(againstWitness.json).toMatchObject({ valid: false, first_broken: { reason: "checkpoint_mismatch" }, checkpoint: { seq, source: "witness" } });
  });

  it("a cut of the newest entries is caught; a forged or foreign checkpoint is refused", async () => {
    const { workspace, key } = await trail(6);
    const { seq } = (await signCheckpoint(workspace.id))!;
    expect((await verifyChain(workspace.id)).valid).toBe(true);
    await withTriggersOff(async (tx) => {
      await tx.delete(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), gt(auditEntries.seq, seq - 2)));
      const [last] = await tx.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.seq, seq - 2)));
      await tx.update(auditHeads).set({ seq: seq - 2, hash: last!.hash! }).where(eq(auditHeads.workspaceId, workspace.id));
    });
    expect(await verifyChain(workspace.id)).toMatchObject({ valid: false, first_broken: { reason: "checkpoint_ahead", seq } });

    const other = await trail(1);
    const foreign = (await signCheckpoint(other.workspace.id))!.jws;
    const refused = await api(`/api/v1/audit/verify?checkpoint=${encodeURIComponent(foreign)}`, { key });
    expect(refused.json).toMatchObject({ valid: false, first_broken: { reason: "checkpoint_invalid" } });
  });

  it("the database refuses to move a head back, to change checkpoints, and hands the audit tables to a separate owner", async () => {
    const { workspace } = await trail(2);
    await signCheckpoint(workspace.id);
    const db = await getDb();
    await expect(db.update(auditHeads).set({ seq: 1 }).where(eq(auditHeads.workspaceId, workspace.id))).rejects.toThrow();
    await expect(db.update(auditHeads).set({ hash: GENESIS_HASH }).where(eq(auditHeads.workspaceId, workspace.id))).rejects.toThrow();
    await expect(db.delete(auditHeads).where(eq(auditHeads.workspaceId, workspace.id))).rejects.toThrow();
    await expect(db.update(auditCheckpoints).set({ seq: 99 }).where(eq(auditCheckpoints.workspaceId, workspace.id))).rejects.toThrow();
    await expect(db.delete(auditCheckpoints).where(eq(auditCheckpoints.workspaceId, workspace.id))).rejects.toThrow();

    const { rows } = await db.execute<{ tablename: string; tableowner: string }>(
      sql`select tablename, tableowner from pg_tables where tablename in ('audit_entries', 'audit_heads', 'audit_checkpoints') order by tablename`,
    );
    expect(rows.map((r) => r.tableowner)).toEqual(["agentdraft_audit_owner", "agentdraft_audit_owner", "agentdraft_audit_owner"]);
    // A role with the app's grants (not the owner, no CREATEROLE) cannot switch the triggers off.
    const role = `agentdraft_app_check_${process.pid}`;
    await db.execute(sql.raw(`do $$ begin create role ${role} nologin; exception when duplicate_object then null; end $$`));
    await db.execute(sql.raw(`grant select, insert, update on audit_entries, audit_heads, audit_checkpoints to ${role}`));
    const refused = await db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`set local role ${role}`));
        await tx.execute(sql`alter table audit_entries disable trigger user`);
      })
      .then(() => null, (err: Error & { cause?: Error }) => err.cause?.message ?? err.message);
    expect(refused).toMatch(/must be owner/);
    await db.execute(sql.raw(`revoke all on audit_entries, audit_heads, audit_checkpoints from ${role}`));
    await db.execute(sql.raw(`drop role ${role}`));
  });

  it("checkpoints are background work: due once the head moves, signed once, then an interval later", async () => {
    const { workspace } = await trail(2);
    const db = await getDb();
    const due = async () =>
      (await db.execute<{ id: string; due_at: string }>(sql`select * from (${checkpointSource()}) s where s.id = ${workspace.id}`)).rows;
    expect(await due()).toHaveLength(1);
    expect((await signCheckpoint(workspace.id))?.seq).toBe((await head(workspace.id)).seq);
    expect(await signCheckpoint(workspace.id)).toBeNull(); // a duplicate run signs nothing
    expect(await due()).toHaveLength(0);

    await newAgent(workspace.id, "later");
    await sealAuditWork(workspace.id);
    await sealWorkspace(workspace.id); // the job's run may have found another file's sealer busy (one database): sealed by now
    const [next] = await due();
    const [latest] = await db.select().from(auditCheckpoints).where(eq(auditCheckpoints.workspaceId, workspace.id));
    expect(new Date(next!.due_at).getTime()).toBe(latest!.signedAt.getTime() + CHECKPOINT_INTERVAL_MS);
  });

  it("the CLI exports checkpoints and verifies against a witness's", async () => {
    const { workspace } = await trail(2);
    const out: string[] = [];
    const sink = { write: (s: string) => out.push(s) };
    expect(await runCli(["audit", "checkpoints", "--workspace", workspace.id, "--sign", "--json"], sink, sink)).toBe(0);
    const [checkpoint] = JSON.parse(out.join(""));
    const { seq } = await head(workspace.id);
    expect(checkpoint).toMatchObject({ seq, jws: expect.stringMatching(/^ey/) });
    out.length = 0;
    expect(await runCli(["audit", "verify", "--workspace", workspace.id, "--checkpoint", checkpoint.jws], sink, sink)).toBe(0);
    expect(out.join("")).toContain(`anchored at checkpoint seq ${seq} (witness)`);
    await rewriteWholeChain(workspace.id);
    out.length = 0;
    expect(await runCli(["audit", "verify", "--workspace", workspace.id, "--checkpoint", checkpoint.jws], sink, sink)).toBe(1);
    expect(out.join("")).toContain("checkpoint_mismatch");
  });

  it("an agent-bound key cannot export the workspace's checkpoints", async () => {
    const { workspace } = await trail(1);
    const agent = await newAgent(workspace.id, "scoped");
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["audit"] });
    expect((await api("/api/v1/audit/checkpoints", { key })).status).toBe(403);
  });
});
