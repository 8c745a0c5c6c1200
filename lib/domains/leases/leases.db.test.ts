// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { jsonValue } from "../../../db/row-json";
import { auditEntries, leases, webhookEvents } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { expireLeases } from "./expire-leases";
import { serializeLease } from "./serialize";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setup() {
  const { workspace } = await newWorkspace();
  const a = await newAgent(workspace.id, "deployer-a");
  const b = await newAgent(workspace.id, "deployer-b");
  const { key: keyA } = await newKey(workspace.id, { agent_id: a.id });
  const { key: keyB } = await newKey(workspace.id, { agent_id: b.id });
  const { key: wide } = await newKey(workspace.id);
  return { workspace, a, b, keyA, keyB, wide };
}
const acquire = (key: string, body: Record<string, unknown>) => api("/api/v1/leases", { key, body: { resource: "deploy:staging", ttl_seconds: 60, ...body } });

describe("leases over the API", () => {
  it("acquire, conflict, renew, release, re-acquire with a higher token; verify follows; webhooks and audit", async () => {
    const { workspace, a, keyA, keyB, wide } = await setup();
    const first = await acquire(keyA, { metadata: { pipeline: 42 } });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ object: "lease", resource: "deploy:staging", agent_id: a.id, fencing_token: 1, status: "active", priority: 50, metadata: { pipeline: 42 } });

    const taken = await acquire(keyB, { priority: 100 });
    expect(taken.status).toBe(409);
    expect(taken.json.code).toBe("lease_conflict");
    // Another agent's lease is not named to an agent-bound key; a workspace-wide key sees who.
    // Nor is its fencing token, to anyone: with it another agent could write as the holder.
    expect(taken.json.conflict).toEqual({ lease_id: first.json.id, agent_id: null, priority: 50, expires_at: first.json.expires_at });
    expect(taken.text).not.toContain("fencing_token");
    const wideConflict = await acquire(wide, {});
    expect(wideConflict.json.conflict.agent_id).toBe(a.id);
    expect(wideConflict.json.conflict).not.toHaveProperty("fencing_token");

    const renewed = await api(`/api/v1/leases/${first.json.id}/renew`, { key: keyA, body: { ttl_seconds: 120 } });
    expect(renewed.status).toBe(200);
    expect(renewed.json).toMatchObject({ fencing_token: 1, ttl_seconds: 120 });
    expect(Date.parse(renewed.json.expires_at)).toBeGreaterThan(Date.parse(first.json.expires_at));
    expect((await api("/api/v1/leases/verify", { key: keyB, body: { resource: "deploy:staging", fencing_token: 1 } })).json).toMatchObject({ valid: true, live: true, newest_fencing_token: 1 });

    expect((await api(`/api/v1/leases/${first.json.id}/release`, { key: keyB, method: "POST" })).status).toBe(404);
    const released = await api(`/api/v1/leases/${first.json.id}/release`, { key: keyA, method: "POST" });
    expect(released.json).toMatchObject({ status: "released", ended_at: expect.any(String) });
    expect((await api(`/api/v1/leases/${first.json.id}/release`, { key: keyA, method: "POST" })).status).toBe(200);
    expect((await api(`/api/v1/leases/${first.json.id}/renew`, { key: keyA, body: {} })).json.code).toBe("lease_not_active");
    expect((await api("/api/v1/leases/verify", { key: keyB, body: { resource: "deploy:staging", fencing_token: 1 } })).json).toMatchObject({ valid: false, live: false });

    const second = await acquire(keyB, {});
    expect(second.json.fencing_token).toBe(2);
    const stale = await api("/api/v1/leases/verify", { key: keyA, body: { resource: "deploy:staging", fencing_token: 1 } });
    expect(stale.json).toMatchObject({ valid: false, newest_fencing_token: 2 });
    expect((await api("/api/v1/leases/verify", { key: keyA, body: { resource: "never:leased", fencing_token: 1 } })).json).toMatchObject({ valid: false, newest_fencing_token: 0 });

    const db = await getDb();
    // In the event stream's order (an update moves a row in the heap, so an unordered read may not be).
    const types = (await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id)).orderBy(webhookEvents.seq)).map((e) => e.type).filter((t) => t.startsWith("lease."));
    expect(types).toEqual(["lease.acquired", "lease.released", "lease.acquired"]);
    const actions = (await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id))).map((e) => e.action).filter((t) => t.startsWith("lease."));
    expect(actions.sort()).toEqual(["lease.acquired", "lease.acquired", "lease.released", "lease.renewed"]);
  });

  it("is dead the instant its TTL passes, before any job runs; the job then records lease.expired once", async () => {
    const { workspace, keyA, keyB } = await setup();
    const first = await acquire(keyA, { ttl_seconds: 1 });
    await sleep(1100);
    expect((await api(`/api/v1/leases/${first.json.id}`, { key: keyA })).json.status).toBe("expired");
    expect((await api(`/api/v1/leases/${first.json.id}/renew`, { key: keyA, body: {} })).json.code).toBe("lease_expired");
    expect((await api("/api/v1/leases/verify", { key: keyA, body: { resource: "deploy:staging", fencing_token: 1 } })).json.valid).toBe(false);
    const next = await acquire(keyB, {});
    expect(next.status).toBe(201);
    expect(next.json.fencing_token).toBe(2);
    await expireLeases();
    const db = await getDb();
    const expired = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "lease.expired")));
    expect(expired).toHaveLength(1);
    expect((await api(`/api/v1/leases/${first.json.id}`, { key: keyA })).json).toMatchObject({ status: "expired", ended_at: first.json.expires_at });
  });

  it("an agent's ceiling bounds a lease's priority; bad input is 400 and changes nothing", async () => {
    const { workspace, a, keyA, wide } = await setup();
    await api(`/api/v1/agents/${a.id}`, { key: wide, method: "PATCH", body: { max_priority: 20 } });
    const refused = await acquire(keyA, { priority: 21 });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("priority_above_ceiling");
    for (const body of [{ resource: "" }, { resource: "has space" }, { ttl_seconds: 0 }, { ttl_seconds: 86_401 }, { priority: 101 }, { resource: "x".repeat(201) }]) {
      const r = await acquire(keyA, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const db = await getDb();
    expect(await db.select().from(leases).where(eq(leases.workspaceId, workspace.id))).toEqual([]);
    expect((await acquire(keyA, { priority: 20 })).status).toBe(201);
  });

  it("an agent-bound key neither reads nor lists another agent's lease; other workspaces see nothing", async () => {
    const { keyA, keyB, wide } = await setup();
    const mine = await acquire(keyA, { metadata: { secret: "ACME" } });
    const other = await api(`/api/v1/leases/${mine.json.id}`, { key: keyB });
    expect(other.status).toBe(404);
    expect(other.text).not.toContain("ACME");
    expect((await api("/api/v1/leases", { key: keyB })).json.data).toEqual([]);
    expect((await api("/api/v1/leases?status=active", { key: keyA })).json.data.map((l: { id: string }) => l.id)).toEqual([mine.json.id]);
    expect((await api("/api/v1/leases?resource=deploy:staging", { key: wide })).json.data).toHaveLength(1);
    const { workspace: elsewhere } = await newWorkspace();
    const { key: foreign } = await newKey(elsewhere.id);
    expect((await api(`/api/v1/leases/${mine.json.id}`, { key: foreign })).status).toBe(404);
    // Another workspace's resource of the same name is its own: token 1 there too.
    expect((await acquire(foreign, {})).json.fencing_token).toBe(1);
  });

  it("the database's lease JSON (webhooks) equals the API's", async () => {
    const { keyA } = await setup();
    const l = await acquire(keyA, { ttl_seconds: 1, metadata: { ü: [1, { deep: true }] } });
    await api(`/api/v1/leases/${l.json.id}/renew`, { key: keyA, body: { ttl_seconds: 1 } });
    const db = await getDb();
    for (const moment of ["live", "expired"]) {
      if (moment === "expired") await sleep(1100);
      const [row] = await db.select().from(leases).where(eq(leases.id, l.json.id));
      const { rows } = await db.execute<{ j: unknown }>(sql`select agentdraft_lease_json(l) as j from leases l where id = ${l.json.id}`);
      expect(jsonValue(rows[0]!.j)).toEqual(serializeLease(row!));
    }
  });
});

describe("racing for one lease", () => {
  it("50 agents at once: exactly one wins per live period, and the tokens strictly increase across expiries and releases", async () => {
    const { workspace } = await newWorkspace();
    const agents = await Promise.all(Array.from({ length: 50 }, (_, i) => newAgent(workspace.id, `worker-${i}`)));
    const keys = await Promise.all(agents.map((a) => newKey(workspace.id, { agent_id: a.id }).then((k) => k.key)));
    const tokens: number[] = [];
    for (let round = 0; round < 4; round++) {
      // Odd rounds end by release, even ones by expiry.
      const ttl = round % 2 ? 60 : 3;
      const results = await Promise.all(keys.map((key) => api("/api/v1/leases", { key, body: { resource: "repo:web", ttl_seconds: ttl } })));
      const winners = results.filter((r) => r.status === 201).sort((x, y) => x.json.fencing_token - y.json.fencing_token);
      // One winner per live period: a 3 s lease can lapse while a slow machine still answers the
      // round's 50 requests, and then another agent wins it: every winner but the last has lapsed.
      if (ttl === 60) expect(winners, `round ${round}`).toHaveLength(1);
      expect(winners.length, `round ${round}`).toBeGreaterThanOrEqual(1);
      const roundEnd = Date.now();
      for (const w of winners.slice(0, -1)) expect(Date.parse(w.json.expires_at), `round ${round}: two live leases`).toBeLessThanOrEqual(roundEnd);
      expect(results.filter((r) => r.status === 409).every((r) => r.json.code === "lease_conflict")).toBe(true);
      tokens.push(...winners.map((w) => w.json.fencing_token as number));
      const last = winners.at(-1)!;
      const winnerKey = keys[results.indexOf(last)]!;
      if (round % 2) expect((await api(`/api/v1/leases/${last.json.id}/release`, { key: winnerKey, method: "POST" })).status).toBe(200);
      else await sleep(Math.max(0, Date.parse(last.json.expires_at) - Date.now()) + 50);
    }
    expect(tokens).toEqual(tokens.map((_, i) => i + 1));
    const db = await getDb();
    const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from leases where workspace_id = ${workspace.id}`);
    expect(Number(rows[0]!.n)).toBe(tokens.length);
  });
});

describe("the leases scope", () => {
  it("a key needs it to take, renew, release, read or verify leases (403 insufficient_scope); a key with it, or with every scope, may", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "deployer");
    const { key: calendarOnly } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["calendar", "handoffs"] });
    const { key: leasing } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["leases"] });
    const refused = await api("/api/v1/leases", { key: calendarOnly, body: { resource: "deploy:scoped", ttl_seconds: 60 } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: "insufficient_scope", required_scope: "leases" });
    const lease = await api("/api/v1/leases", { key: leasing, body: { resource: "deploy:scoped", ttl_seconds: 60 } });
    expect(lease.status).toBe(201);
    for (const [path, body] of [
      [`/api/v1/leases/${lease.json.id}/renew`, { ttl_seconds: 60 }],
      [`/api/v1/leases/${lease.json.id}/release`, {}],
      ["/api/v1/leases/verify", { resource: "deploy:scoped", fencing_token: 1 }],
    ] as const) {
      expect((await api(path, { key: calendarOnly, body })).json.code, path).toBe("insufficient_scope");
    }
    expect((await api(`/api/v1/leases/${lease.json.id}`, { key: calendarOnly })).status).toBe(403);
    expect((await api("/api/v1/leases", { key: calendarOnly })).status).toBe(403);
    expect((await api(`/api/v1/leases/${lease.json.id}/release`, { key: leasing, method: "POST" })).status).toBe(200);
    const { key: everything } = await newKey(workspace.id, { agent_id: agent.id });
    expect((await api("/api/v1/leases", { key: everything, body: { resource: "deploy:scoped", ttl_seconds: 60 } })).status).toBe(201);
  });
});
