// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { getDb } from "../../../db/client";
import { agents, auditEntries, idempotencyKeys } from "../../../db/schema";

const { api } = serveApiForTests();

async function agentCount(workspaceId: string) {
  const db = await getDb();
  const rows = await db.select().from(agents).where(eq(agents.workspaceId, workspaceId));
  return rows.length;
}

describe("Idempotency-Key on POST", () => {
  it("replays the stored response for the same key and body, executing once", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const call = { key, body: { name: "once" }, headers: { "idempotency-key": "create-once-1" } };
    const first = await api("/api/v1/agents", call);
    const second = await api("/api/v1/agents", call);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await agentCount(workspace.id)).toBe(1);
  });

  it("compares JSON bodies canonically: key order and spacing do not matter", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const headers = { "idempotency-key": "canon", "content-type": "application/json" };
    const a = await api("/api/v1/agents", { key, rawBody: '{"name":"c","description":"d"}', headers });
    const b = await api("/api/v1/agents", { key, rawBody: '{ "description": "d",  "name": "c" }', headers });
    expect(b.json).toEqual(a.json);
    expect(await agentCount(workspace.id)).toBe(1);
  });

  it("refuses the same key with another body with 422 idempotency_mismatch", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const headers = { "idempotency-key": "reused" };
    expect((await api("/api/v1/agents", { key, body: { name: "first" }, headers })).status).toBe(201);
    const res = await api("/api/v1/agents", { key, body: { name: "second" }, headers });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe("idempotency_mismatch");
    expect(await agentCount(workspace.id)).toBe(1);
  });

  it("scopes keys per API key: another key may use the same Idempotency-Key", async () => {
    const { workspace } = await newWorkspace();
    const { key: k1 } = await newKey(workspace.id);
    const { key: k2 } = await newKey(workspace.id);
    const headers = { "idempotency-key": "shared" };
    expect((await api("/api/v1/agents", { key: k1, body: { name: "one" }, headers })).status).toBe(201);
    expect((await api("/api/v1/agents", { key: k2, body: { name: "two" }, headers })).status).toBe(201);
    expect(await agentCount(workspace.id)).toBe(2);
  });

  it("stores a 4xx answer and replays it, with nothing changed", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    expect((await api("/api/v1/agents", { key, body: { name: "taken" } })).status).toBe(201);
    const call = { key, body: { name: "taken" }, headers: { "idempotency-key": "dup-name" } };
    const first = await api("/api/v1/agents", call);
    expect(first.status).toBe(409);
    const again = await api("/api/v1/agents", call);
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.request_id).toBe(first.json.request_id);
    expect(await agentCount(workspace.id)).toBe(1);
  });

  it("runs again once the stored response is past its 24 hours", async () => {
    const { workspace } = await newWorkspace();
    const { row, key } = await newKey(workspace.id);
    const call = { key, body: { name: "old" }, headers: { "idempotency-key": "expiring" } };
    expect((await api("/api/v1/agents", call)).status).toBe(201);
    const db = await getDb();
    await db
      .update(idempotencyKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(idempotencyKeys.apiKeyId, row.id), eq(idempotencyKeys.key, "expiring")));
    const again = await api("/api/v1/agents", call);
    expect(again.status).toBe(409); // executed afresh: the name is now taken
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  it("rejects a malformed Idempotency-Key", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const res = await api("/api/v1/agents", { key, body: { name: "x" }, headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("invalid_request");
    expect(await agentCount(workspace.id)).toBe(0);
  });

  it("executes exactly once when 25 identical requests race", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const call = { key, body: { name: "raced" }, headers: { "idempotency-key": "race-1", "x-trace-id": "race-trace" } };
    const results = await Promise.all(Array.from({ length: 25 }, () => api("/api/v1/agents", call)));

    const statuses = results.map((r) => r.status);
    // Each twin either replays the one result or is told the first is still running.
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = results.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.json.id)).size).toBe(1);
    for (const r of results.filter((r) => r.status === 409)) expect(r.json.code).toBe("idempotency_in_progress");
    expect(await agentCount(workspace.id)).toBe(1);

    const db = await getDb();
    const entries = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "agent.created")));
    expect(entries).toHaveLength(1);
  });
});

// A second connection holding the "running" lock stands in for a first request still in
// flight. (PGlite has one connection, so there a twin simply waits for the first, then replays.)
describe.runIf(process.env.AGENTDRAFT_TEST_DB === "postgres")("Idempotency-Key while the first request runs", () => {
  it("answers 409 idempotency_in_progress, never a second execution, then runs once the first is gone", async () => {
    const { default: pg } = await import("pg");
    const { idempotencyLockKey } = await import("./idempotency");
    const { workspace } = await newWorkspace();
    const { row, key } = await newKey(workspace.id);
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query("select pg_advisory_lock($1::bigint)", [idempotencyLockKey(row.id, "in-flight").toString()]);
      const call = { key, body: { name: "in-flight" }, headers: { "idempotency-key": "in-flight" } };
      const busy = await api("/api/v1/agents", call);
      expect(busy.status).toBe(409);
      expect(busy.json.code).toBe("idempotency_in_progress");
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(await agentCount(workspace.id)).toBe(0);

      await other.query("select pg_advisory_unlock_all()");
      expect((await api("/api/v1/agents", call)).status).toBe(201);
      expect(await agentCount(workspace.id)).toBe(1);
    } finally {
      await other.end();
    }
  });
});
