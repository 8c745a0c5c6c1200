// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { getDb } from "../../../db/client";
import { auditEntries, calendars, holds, idempotencyKeys } from "../../../db/schema";

// Operations whose state change is one statement store their Idempotency-Key record inside
// that statement (db/effect.ts): the same guarantees as the transaction path, in one round trip.
const { api } = serveApiForTests();
const soon = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function countCalendars(workspaceId: string) {
  const db = await getDb();
  return (await db.select().from(calendars).where(eq(calendars.workspaceId, workspaceId))).length;
}

async function setup() {
  const { workspace } = await newWorkspace();
  const { row, key } = await newKey(workspace.id);
  return { workspace, keyId: row.id, key };
}

describe("Idempotency-Key on one-statement operations", () => {
  it("replays a created calendar for the same key and body: one calendar, one audit entry", async () => {
    const { workspace, key } = await setup();
    const call = { key, body: { name: "room" }, headers: { "idempotency-key": "cal-once" } };
    const first = await api("/api/v1/calendars", call);
    const second = await api("/api/v1/calendars", call);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json).toEqual(first.json);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await countCalendars(workspace.id)).toBe(1);
    const db = await getDb();
    const entries = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "calendar.created")));
    expect(entries).toHaveLength(1);
  });

  it("refuses the same key with another body with 422, changing nothing", async () => {
    const { workspace, key } = await setup();
    const headers = { "idempotency-key": "cal-reused" };
    expect((await api("/api/v1/calendars", { key, body: { name: "a" }, headers })).status).toBe(201);
    const res = await api("/api/v1/calendars", { key, body: { name: "b" }, headers });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe("idempotency_mismatch");
    expect(await countCalendars(workspace.id)).toBe(1);
  });

  it("creates exactly once when 25 identical requests race, and every twin gets the one answer", async () => {
    const { workspace, key } = await setup();
    const call = { key, body: { name: "raced" }, headers: { "idempotency-key": "cal-race" } };
    const results = await Promise.all(Array.from({ length: 25 }, () => api("/api/v1/calendars", call)));
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
    expect(await countCalendars(workspace.id)).toBe(1);
  });

  it("places a hold exactly once when 25 identical requests race", async () => {
    const { workspace, key } = await setup();
    const cal = await api("/api/v1/calendars", { key, body: { name: "hot" } });
    const agent = await newAgent(workspace.id);
    const { key: agentKey } = await newKey(workspace.id, { agent_id: agent.id });
    const body = { start_time: soon(60), end_time: soon(90), priority: 50 };
    const call = { key: agentKey, body, headers: { "idempotency-key": "hold-race" } };
    const results = await Promise.all(Array.from({ length: 25 }, () => api(`/api/v1/calendars/${cal.json.id}/holds`, call)));
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
    const db = await getDb();
    expect(await db.select().from(holds).where(eq(holds.workspaceId, workspace.id))).toHaveLength(1);
  });

  it("places a hold exactly once when 25 identical requests of a key known here race (the door in the statement)", async () => {
    const { workspace, key } = await setup();
    const cal = await api("/api/v1/calendars", { key, body: { name: "hot" } });
    const agent = await newAgent(workspace.id);
    const { key: agentKey } = await newKey(workspace.id, { agent_id: agent.id });
    expect((await api("/api/v1/me", { key: agentKey })).status).toBe(200);
    const body = { start_time: soon(60), end_time: soon(90), priority: 50 };
    const call = { key: agentKey, body, headers: { "idempotency-key": "hold-race-known" } };
    const results = await Promise.all(Array.from({ length: 25 }, () => api(`/api/v1/calendars/${cal.json.id}/holds`, call)));
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    const db = await getDb();
    expect(await db.select().from(holds).where(eq(holds.workspaceId, workspace.id))).toHaveLength(1);
  });

  it("stores a refusal the statement decided and replays it byte for byte, with nothing changed", async () => {
    const { workspace, key } = await setup();
    const cal = await api("/api/v1/calendars", { key, body: { name: "busy" } });
    const body = { start_time: soon(60), end_time: soon(90), priority: 50 };
    expect((await api(`/api/v1/calendars/${cal.json.id}/holds`, { key, body })).status).toBe(201);
    const call = { key, body, headers: { "idempotency-key": "refused" } };
    const first = await api(`/api/v1/calendars/${cal.json.id}/holds`, call);
    expect(first.status).toBe(409);
    expect(first.json.code).toBe("hold_conflict");
    const again = await api(`/api/v1/calendars/${cal.json.id}/holds`, call);
    expect(again.status).toBe(409);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const db = await getDb();
    expect(await db.select().from(holds).where(eq(holds.workspaceId, workspace.id))).toHaveLength(1);
  });

  it("replays the commit of a hold without running it twice", async () => {
    const { key } = await setup();
    const cal = await api("/api/v1/calendars", { key, body: { name: "c" } });
    const hold = await api(`/api/v1/calendars/${cal.json.id}/holds`, { key, body: { start_time: soon(60), end_time: soon(90), priority: 1 } });
    const call = { key, body: {}, headers: { "idempotency-key": "commit-1" } };
    const first = await api(`/api/v1/holds/${hold.json.id}/commit`, call);
    const second = await api(`/api/v1/holds/${hold.json.id}/commit`, call);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const db = await getDb();
    const committed = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, hold.json.id), eq(auditEntries.action, "hold.committed")));
    expect(committed).toHaveLength(1);
  });

  it("runs afresh once the stored record is past its 24 hours", async () => {
    const { workspace, keyId, key } = await setup();
    const call = { key, body: { name: "old" }, headers: { "idempotency-key": "cal-expiring" } };
    const first = await api("/api/v1/calendars", call);
    const db = await getDb();
    await db
      .update(idempotencyKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(idempotencyKeys.apiKeyId, keyId), eq(idempotencyKeys.key, "cal-expiring")));
    const again = await api("/api/v1/calendars", call);
    expect(again.status).toBe(201);
    expect(again.json.id).not.toBe(first.json.id);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await countCalendars(workspace.id)).toBe(2);
  });

  it("stores nothing for a request refused before its statement (a malformed body is not an attempt)", async () => {
    const { keyId, key } = await setup();
    const res = await api("/api/v1/calendars", { key, body: { name: "" }, headers: { "idempotency-key": "cal-bad" } });
    expect(res.status).toBe(400);
    const db = await getDb();
    expect(await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.apiKeyId, keyId))).toHaveLength(0);
  });
});
