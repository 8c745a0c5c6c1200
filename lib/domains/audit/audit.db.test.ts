// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { holdBackSealing, sealWorkspace } from "../../../test/helpers/audit";
import { getDb } from "../../../db/client";
import { auditEntries } from "../../../db/schema";
import { auditEntrySchema, chainVerificationSchema } from "./schemas";
import { entryHash, GENESIS_HASH } from "../../platform/audit/chain";
import { sealAuditChain } from "../../platform/audit/seal-chain";

const { api, url } = serveApiForTests();

describe("audit trail", () => {
  it("records each state change with actor, agent, trace and request ids, and lists it newest first", async () => {
    const { workspace } = await newWorkspace();
    const { row: keyRow, key } = await newKey(workspace.id);
    const created = await api("/api/v1/agents", { key, body: { name: "audited" }, headers: { "x-trace-id": "trace-abc" } });
    expect(created.status).toBe(201);

    await sealWorkspace(workspace.id); // the list shows chained entries; another file's sealer may be busy (one database)
    const res = await api("/api/v1/audit", { key });
    expect(res.status).toBe(200);
    const [latest, ...older] = res.json.data;
    expect(auditEntrySchema.safeParse(latest).error).toBeUndefined();
    expect(latest).toMatchObject({
      action: "agent.created",
      actor: { type: "key", id: keyRow.id },
      agent_id: created.json.id,
      resource: { type: "agent", id: created.json.id },
      trace_id: "trace-abc",
      request_id: created.headers.get("x-request-id"),
      summary: { name: "audited" },
      outcome: "succeeded",
    });
    // Workspace and key creation (by the operator) came first.
    expect(older.map((e: { action: string }) => e.action)).toEqual(["api_key.created", "workspace.created"]);
    expect(res.json.data.map((e: { seq: number }) => e.seq)).toEqual([3, 2, 1]);
    expect(res.json.data[2].prev_hash).toBe(GENESIS_HASH);
  });

  it("filters by resource, agent, action (exact or prefix), trace and time", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const a = (await api("/api/v1/agents", { key, body: { name: "a" }, headers: { "x-trace-id": "t-1" } })).json;
    const b = (await api("/api/v1/agents", { key, body: { name: "b" }, headers: { "x-trace-id": "t-2" } })).json;
    const ids = async (q: string) => (await api(`/api/v1/audit?${q}`, { key })).json.data.map((e: { resource: { id: string } }) => e.resource.id);
    await sealWorkspace(workspace.id); // the list shows chained entries; another file's sealer may be busy (one database)

    expect(await ids(`resource_id=${a.id}`)).toEqual([a.id]);
    expect(await ids(`agent_id=${b.id}`)).toEqual([b.id]);
    expect(await ids("trace_id=t-1")).toEqual([a.id]);
    expect(await ids("action=agent.created")).toEqual([b.id, a.id]);
    expect(await ids("action=agent.*")).toEqual([b.id, a.id]);
    expect(await ids("resource_type=workspace")).toEqual([workspace.id]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await ids(`from=${encodeURIComponent(future)}`)).toEqual([]);
    expect((await ids(`to=${encodeURIComponent(future)}&action=agent.*`)).length).toBe(2);
  });

  it("pages by starting_after and rejects an unknown cursor", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    for (const name of ["p1", "p2", "p3"]) await api("/api/v1/agents", { key, body: { name } });
    await sealWorkspace(workspace.id); // the list shows chained entries; another file's sealer may be busy (one database)
    const first = (await api("/api/v1/audit?limit=2", { key })).json;
    expect(first.has_more).toBe(true);
    const second = (await api(`/api/v1/audit?limit=2&starting_after=${first.data[1].id}`, { key })).json;
    expect(second.data.map((e: { seq: number }) => e.seq)).toEqual([3, 2]);
    const bad = await api("/api/v1/audit?starting_after=aud_00000000000000000000000000", { key });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([{ field: "starting_after", message: "unknown audit entry id" }]);
    // Not shaped like an id at all: refused before any query.
    const junk = await api("/api/v1/audit?starting_after=aud_unknown", { key });
    expect(junk.status).toBe(400);
    expect(junk.json.errors).toEqual([{ field: "starting_after", message: expect.stringMatching(/an id from the previous page/) }]);
  });

  it("shows an agent-bound key only its own agent's entries", async () => {
    const { workspace } = await newWorkspace();
    const mine = await newAgent(workspace.id, "mine");
    const other = await newAgent(workspace.id, "other");
    const { key } = await newKey(workspace.id, { agent_id: mine.id });
    await sealWorkspace(workspace.id); // the list shows chained entries; another file's sealer may be busy (one database)
    const res = await api("/api/v1/audit", { key });
    expect(res.json.data.map((e: { agent_id: string }) => e.agent_id)).toEqual([mine.id, mine.id]); // key + agent creation
    expect((await api(`/api/v1/audit?agent_id=${other.id}`, { key })).status).toBe(404);
  });

  it("writes nothing when the change fails: no partial writes", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    await api("/api/v1/agents", { key, body: { name: "dup" } });
    await sealWorkspace(workspace.id); // the list shows chained entries; another file's sealer may be busy (one database)
    const before = (await api("/api/v1/audit", { key })).json.data.length;
    expect((await api("/api/v1/agents", { key, body: { name: "dup" } })).status).toBe(409);
    expect((await api("/api/v1/audit", { key })).json.data.length).toBe(before);
    expect((await api("/api/v1/audit/verify", { key })).json.valid).toBe(true);
  });

  it("exports JSON Lines, oldest first, streamed, that re-verify offline", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    for (let i = 0; i < 7; i++) await api("/api/v1/agents", { key, body: { name: `e${i}` } });
    await sealWorkspace(workspace.id); // the export is of chained entries; another file's sealer may be busy (one database)
    const res = await fetch(`${url()}/api/v1/audit/export`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/jsonl; charset=utf-8");
    const lines = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Anyone with the export can recompute the chain.
    let prev = GENESIS_HASH;
    for (const e of lines) {
      const { createHash } = await import("node:crypto");
      const { canonicalJson } = await import("../../platform/crypto/canonical-json");
      const { object: _o, prev_hash, hash, ...fields } = e;
      expect(prev_hash).toBe(prev);
      expect(createHash("sha256").update(prev_hash).update(canonicalJson(fields)).digest("hex")).toBe(hash);
      prev = hash;
    }
    const filtered = await fetch(`${url()}/api/v1/audit/export?action=workspace.created`, { headers: { authorization: `Bearer ${key}` } });
    expect((await filtered.text()).trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("the database keeps the trail append-only", () => {
  it.each([
    ["UPDATE", sql`update audit_entries set action = 'forged'`],
    ["DELETE", sql`delete from audit_entries`],
    ["TRUNCATE", sql`truncate audit_entries`],
  ])("refuses %s", async (_op, statement) => {
    await newWorkspace();
    const db = await getDb();
    await expect(db.execute(statement)).rejects.toThrow();
    const [{ n }] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from audit_entries where action = 'forged'`)).rows as [{ n: number }];
    expect(n).toBe(0);
  });
});

describe("sealing", () => {
  it("chains entries after their transactions commit; a sealed entry, or an unsealed one's content, cannot change", async () => {
    const db = await getDb();
    const { workspace } = await newWorkspace();
    await sealWorkspace(workspace.id);
    // Another file's sealer (one shared database) would chain the entry at any moment: held back while we look.
    const release = await holdBackSealing(workspace.id);
    let unsealed: typeof auditEntries.$inferSelect | undefined;
    try {
      const agent = await newAgent(workspace.id);
      [unsealed] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.resourceId, agent.id)));
      expect(unsealed).toMatchObject({ seq: null, hash: null, prevHash: null });
      await expect(db.execute(sql`update audit_entries set summary = '{"name":"forged"}'::jsonb where id = ${unsealed!.id}`)).rejects.toThrow();
      await expect(
        db.execute(sql`update audit_entries set seq = 1, prev_hash = 'x', hash = 'y', action = 'forged' where id = ${unsealed!.id}`),
      ).rejects.toThrow();
    } finally {
      await release();
    }

    await sealWorkspace(workspace.id);
    const [first] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.seq, 1)));
    const [sealed] = await db.select().from(auditEntries).where(eq(auditEntries.id, unsealed!.id));
    expect(first).toMatchObject({ prevHash: GENESIS_HASH });
    expect(sealed).toMatchObject({ seq: 2, prevHash: first!.hash, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await expect(db.execute(sql`update audit_entries set hash = ${"0".repeat(64)} where id = ${unsealed!.id}`)).rejects.toThrow();
    // Sealing again leaves a sealed entry as it is (its count would include other files' entries: one database).
    await sealAuditChain();
    expect(await db.select().from(auditEntries).where(eq(auditEntries.id, unsealed!.id))).toEqual([sealed]);
  });

  it("keeps one linear chain when writers and sealers run at once", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const writes = Promise.all(Array.from({ length: 30 }, (_, i) => api("/api/v1/agents", { key, body: { name: `busy-${i}` } })));
    const seals = Promise.all(Array.from({ length: 10 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * 20));
      return sealAuditChain();
    }));
    await Promise.all([writes, seals]);
    await sealWorkspace(workspace.id); // each sealAuditChain() above may have found another file's sealer busy (one database)
    expect((await api("/api/v1/audit/verify", { key })).json).toMatchObject({ valid: true, entries_checked: 32 });
  });
});

describe("GET /v1/audit/verify", () => {
  it("detects a row altered by a superuser who disabled the trigger, naming the first broken link", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    for (const name of ["v1", "v2", "v3"]) await api("/api/v1/agents", { key, body: { name } });
    await sealWorkspace(workspace.id); // verify's own seal returns at once while another file's sealer runs (one database)
    const ok = await api("/api/v1/audit/verify", { key });
    expect(chainVerificationSchema.parse(ok.json)).toMatchObject({ valid: true, entries_checked: 5, head: { seq: 5 }, first_broken: null });

    const db = await getDb();
    const [target] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.seq, 3)));
    await db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_entries disable trigger user`);
      await tx.execute(sql`update audit_entries set summary = '{"name":"forged"}'::jsonb where id = ${target!.id}`);
      await tx.execute(sql`alter table audit_entries enable trigger user`);
    });
    const broken = await api("/api/v1/audit/verify", { key });
    expect(broken.json).toMatchObject({
      valid: false,
      entries_checked: 2,
      first_broken: { seq: 3, id: target!.id, reason: "hash_mismatch" },
    });
  });

  it("detects a re-hashed forgery by the broken link after it, and a deleted tail", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    for (const name of ["w1", "w2"]) await api("/api/v1/agents", { key, body: { name } });
    await sealWorkspace(workspace.id);
    const db = await getDb();
    const rows = await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id)).orderBy(auditEntries.seq);
    const victim = rows[1]!;
    const forged = { ...victim, summary: { prefix: "forged" } };
    const forgedHash = entryHash(victim.prevHash!, forged);
    await db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_entries disable trigger user`);
      await tx.execute(sql`update audit_entries set summary = '{"prefix":"forged"}'::jsonb, hash = ${forgedHash} where id = ${victim.id}`);
      await tx.execute(sql`alter table audit_entries enable trigger user`);
    });
    const res = (await api("/api/v1/audit/verify", { key })).json;
    expect(res.first_broken).toMatchObject({ seq: 3, reason: "prev_hash_mismatch" });

    const last = rows.at(-1)!;
    await db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_entries disable trigger user`);
      await tx.execute(sql`update audit_entries set hash = ${victim.hash}, summary = ${JSON.stringify(victim.summary)}::jsonb where id = ${victim.id}`);
      await tx.execute(sql`delete from audit_entries where id = ${last.id}`);
      await tx.execute(sql`alter table audit_entries enable trigger user`);
    });
    const tail = (await api("/api/v1/audit/verify", { key })).json;
    expect(tail.first_broken).toMatchObject({ seq: last.seq, reason: "entries_missing" });
  });

  it("stays one linear chain when 40 clients write at once", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api("/api/v1/agents", { key, body: { name: `writer-${i}` }, headers: { "x-trace-id": `w-${i}` } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(201));
    await sealWorkspace(workspace.id);
    const db = await getDb();
    const rows = await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id)).orderBy(auditEntries.seq);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 42 }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prevHash).toBe(rows[i - 1]!.hash);
    expect(new Set(rows.map((r) => r.traceId)).size).toBe(41); // 40 traces + the operator's null
    const verified = (await api("/api/v1/audit/verify", { key })).json;
    expect(verified).toMatchObject({ valid: true, entries_checked: 42 });
  });
});
