// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { jsonValue } from "../../../db/row-json";
import { auditEntries, handoffBodies, handoffs, webhookEvents } from "../../../db/schema";
import { claimedHandoffSchema, handoffEnvelopeSchema, handoffSchema } from "./schemas";
import { serializeHandoff } from "./serialize";
import { settleHandoffs } from "./handoff-clock";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

/** A workspace with two agents (a planner that hands off, a researcher that works) and their keys. */
async function team() {
  const { workspace } = await newWorkspace();
  const planner = await newAgent(workspace.id, "planner");
  const researcher = await newAgent(workspace.id, "researcher");
  const plannerKey = (await newKey(workspace.id, { agent_id: planner.id })).key;
  const researcherKey = (await newKey(workspace.id, { agent_id: researcher.id })).key;
  const adminKey = (await newKey(workspace.id)).key;
  return { workspace, planner, researcher, plannerKey, researcherKey, adminKey };
}

type Team = Awaited<ReturnType<typeof team>>;

const send = (t: Team, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  api("/api/v1/handoffs", { key: t.plannerKey, body: { to_agent_id: t.researcher.id, type: "research.summarize", body: { url: "https://example.com/paper" }, ...body }, headers });
const claim = (key: string, id: string, body: Record<string, unknown> = {}) => api(`/api/v1/handoffs/${id}/claim`, { key, body: { ttl_seconds: 60, ...body } });
const complete = (key: string, id: string, claimId: string, result: unknown = { ok: true }) =>
  api(`/api/v1/handoffs/${id}/complete`, { key, body: { claim_id: claimId, result } });
const fail = (key: string, id: string, claimId: string, retry = true) =>
  api(`/api/v1/handoffs/${id}/fail`, { key, body: { claim_id: claimId, error: "the source timed out", retry } });

async function events(workspaceId: string, type: string) {
  const db = await getDb();
  return db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));
}

/** A worker "killed" mid-run: its claim's TTL is made to have passed. */
async function lapseClaim(id: string) {
  const db = await getDb();
  await db.execute(sql`update handoffs set claim_expires_at = now() - interval '1 second' where id = ${id}`);
}

describe("creating and reading handoffs", () => {
  it("creates an envelope apart from its body, tells the recipient, and lists envelopes", async () => {
    const t = await team();
    const res = await send(t);
    expect(res.status).toBe(201);
    const env = handoffEnvelopeSchema.strict().parse(res.json);
    expect(env).toMatchObject({ from_agent_id: t.planner.id, to_agent_id: t.researcher.id, status: "pending", attempt: 0, max_attempts: 3, parent_id: null });
    expect(env.id).toMatch(/^hof_/);
    expect(env.correlation_id).toBe(env.id);
    expect(env.trace_id).toBe(env.id);
    expect(res.json).not.toHaveProperty("body");

    const full = await api(`/api/v1/handoffs/${env.id}`, { key: t.researcherKey });
    expect(handoffSchema.strict().parse(full.json)).toMatchObject({ body: { url: "https://example.com/paper" }, result: null });

    const pending = await api("/api/v1/handoffs?status=pending", { key: t.researcherKey });
    expect(pending.json.data.map((h: { id: string }) => h.id)).toEqual([env.id]);
    expect(pending.json.data[0]).not.toHaveProperty("body");
    expect((await api("/api/v1/handoffs?role=sent", { key: t.researcherKey })).json.data).toEqual([]);

    const [received] = await events(t.workspace.id, "handoff.received");
    expect(received).toMatchObject({ agentId: t.researcher.id, data: { handoff: { id: env.id, status: "pending" } } });
    const db = await getDb();
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, env.id), eq(auditEntries.action, "handoff.created")));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ agentId: t.planner.id, traceId: env.id });
  });

  it("chains sub-tasks: a child keeps the root's correlation id and joins the trace of the x-trace-id it was made under", async () => {
    const t = await team();
    const root = (await send(t, {}, { "x-trace-id": "trace-quarterly-report" })).json;
    expect(root.trace_id).toBe("trace-quarterly-report");
    const child = await api("/api/v1/handoffs", {
      key: t.researcherKey,
      body: { to_agent_id: t.planner.id, type: "review", body: {}, parent_id: root.id },
    });
    expect(child.status).toBe(201);
    expect(child.json).toMatchObject({ parent_id: root.id, correlation_id: root.id, trace_id: "trace-quarterly-report", from_agent_id: t.researcher.id });
    const own = await send(t, { correlation_id: "job-42" });
    expect(own.json).toMatchObject({ correlation_id: "job-42", trace_id: "job-42" });
  });

  it("honours the Idempotency-Key: the same key twice is one handoff", async () => {
    const t = await team();
    const headers = { "idempotency-key": "planner-task-7" };
    const [a, b] = [await send(t, {}, headers), await send(t, {}, headers)];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).toBe(a.json.id);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    const db = await getDb();
    expect(await db.select().from(handoffs).where(eq(handoffs.workspaceId, t.workspace.id))).toHaveLength(1);
    expect(await events(t.workspace.id, "handoff.received")).toHaveLength(1);
    // The same key with another request is refused, and makes nothing.
    expect((await send(t, { type: "other" }, headers)).status).toBe(422);
  });

  it("a workspace-wide key must name the sender; an agent-bound key cannot send as another agent", async () => {
    const t = await team();
    const noSender = await api("/api/v1/handoffs", { key: t.adminKey, body: { to_agent_id: t.researcher.id, type: "x", body: 1 } });
    expect(noSender.status).toBe(400);
    expect(noSender.json.errors[0].field).toBe("from_agent_id");
    const named = await api("/api/v1/handoffs", { key: t.adminKey, body: { from_agent_id: t.planner.id, to_agent_id: t.researcher.id, type: "x", body: 1 } });
    expect(named.status).toBe(201);
    expect(named.json.from_agent_id).toBe(t.planner.id);
    expect((await send(t, { from_agent_id: t.researcher.id })).status).toBe(404);
  });

  it("refuses bad input with a 4xx and changes nothing", async () => {
    const t = await team();
    let deep: unknown = "leaf";
    for (let i = 0; i < 20; i++) deep = { d: deep };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ type: "Bad Type!" }, 400, "type"],
      [{ body: undefined }, 400, "body"],
      [{ body: { big: "x".repeat(70 * 1024) } }, 400, "body"],
      [{ body: deep }, 400, "body"],
      [{ max_attempts: 0 }, 400, "max_attempts"],
      [{ expires_in_seconds: -5 }, 400, "expires_in_seconds"],
      [{ to_agent_id: "agent_00000000000000000000000000" }, 400, "to_agent_id"],
      [{ parent_id: "hof_00000000000000000000000000" }, 400, "parent_id"],
      [{ correlation_id: "spaces are not allowed" }, 400, "correlation_id"],
    ];
    for (const [body, status, field] of cases) {
      const res = await send(t, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const db = await getDb();
    expect(await db.select().from(handoffs).where(eq(handoffs.workspaceId, t.workspace.id))).toHaveLength(0);
    const h = (await send(t)).json;
    expect((await claim(t.researcherKey, h.id, { ttl_seconds: 0 })).status).toBe(400);
    expect((await complete(t.researcherKey, h.id, "hclm_00000000000000000000000000")).json.code).toBe("handoff_claim_lost");
  });

  it("another workspace's handoff, or another agent's, is not found; the sender cannot claim", async () => {
    const t = await team();
    const other = await team();
    const h = (await send(t)).json;
    expect((await api(`/api/v1/handoffs/${h.id}`, { key: other.adminKey })).status).toBe(404);
    expect((await claim(other.researcherKey, h.id)).status).toBe(404);
    expect((await api("/api/v1/handoffs", { key: other.adminKey })).json.data).toEqual([]);
    const stranger = await newAgent(t.workspace.id, "stranger");
    const strangerKey = (await newKey(t.workspace.id, { agent_id: stranger.id })).key;
    expect((await api(`/api/v1/handoffs/${h.id}`, { key: strangerKey })).status).toBe(404);
    expect((await claim(strangerKey, h.id)).status).toBe(404);
    const bySender = await claim(t.plannerKey, h.id);
    expect(bySender.status).toBe(403);
    expect(bySender.json.code).toBe("forbidden");
  });
});

describe("working on handoffs", () => {
  it("50 workers claiming one handoff: exactly one wins", async () => {
    const t = await team();
    const h = (await send(t)).json;
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => claim(t.researcherKey, h.id, { worker: `w${i}` })));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.json.code === "handoff_claimed")).toBe(true);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(49);
    const c = claimedHandoffSchema.strict().parse(won[0]!.json);
    expect(c).toMatchObject({ status: "claimed", attempt: 1, body: { url: "https://example.com/paper" } });
    expect(c.claim_id).toMatch(/^hclm_/);
    const db = await getDb();
    const claims = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, h.id), eq(auditEntries.action, "handoff.claimed")));
    expect(claims).toHaveLength(1);
  });

  it("a worker killed mid-run: its claim lapses, another worker completes it exactly once", async () => {
    const t = await team();
    const h = (await send(t)).json;
    const first = (await claim(t.researcherKey, h.id, { worker: "first" })).json;
    // While the claim lives, nobody else gets it.
    expect((await claim(t.researcherKey, h.id)).json.code).toBe("handoff_claimed");
    await lapseClaim(h.id);

    const racers = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(t.researcherKey, h.id, { worker: `fallback-${i}` })));
    const winners = racers.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    const second = winners[0]!.json;
    expect(second).toMatchObject({ attempt: 2, last_error: { attempt: 1 } });

    // The killed worker comes back: its claim is gone and its result is refused.
    const late = await complete(t.researcherKey, h.id, first.claim_id, { from: "first" });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("handoff_claim_lost");

    const done = await Promise.all([complete(t.researcherKey, h.id, second.claim_id, { summary: "ok" }), complete(t.researcherKey, h.id, second.claim_id, { summary: "ok" })]);
    expect(done.map((d) => d.status)).toEqual([200, 200]);
    expect(done[0]!.json).toMatchObject({ status: "completed", result: { summary: "ok" }, attempt: 2 });

    const completed = await events(t.workspace.id, "handoff.completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ agentId: t.planner.id, data: { result: { summary: "ok" }, handoff: { id: h.id, status: "completed" } } });
    const db = await getDb();
    const trail = await db.select({ action: auditEntries.action }).from(auditEntries).where(eq(auditEntries.resourceId, h.id)).orderBy(auditEntries.position);
    expect(trail.map((e) => e.action)).toEqual(["handoff.created", "handoff.claimed", "handoff.claim_expired", "handoff.claimed", "handoff.completed"]);
  });

  it("the claim-expiry job puts a lapsed claim back to pending, and tells the recipient again", async () => {
    const t = await team();
    const h = (await send(t)).json;
    await claim(t.researcherKey, h.id);
    await lapseClaim(h.id);
    expect(await settleHandoffs()).toBeGreaterThanOrEqual(1);
    const after = (await api(`/api/v1/handoffs/${h.id}`, { key: t.plannerKey })).json;
    expect(after).toMatchObject({ status: "pending", attempt: 1, claim: null });
    expect(await events(t.workspace.id, "handoff.received")).toHaveLength(2);
  });

  it("heartbeats keep a claim; a claim id that is not the live one cannot extend it", async () => {
    const t = await team();
    const h = (await send(t)).json;
    const c = (await claim(t.researcherKey, h.id, { ttl_seconds: 5 })).json;
    const extended = await api(`/api/v1/handoffs/${h.id}/extend`, { key: t.researcherKey, body: { claim_id: c.claim_id, ttl_seconds: 600 } });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.json.claim.expires_at)).toBeGreaterThan(Date.now() + 500_000);
    expect((await api(`/api/v1/handoffs/${h.id}/extend`, { key: t.researcherKey, body: { claim_id: "hclm_00000000000000000000000001" } })).json.code).toBe("handoff_claim_lost");
  });

  it("dead-letters after max_attempts: failures with retry, then handoff.dead to both agents", async () => {
    const t = await team();
    const h = (await send(t, { max_attempts: 2 })).json;
    const c1 = (await claim(t.researcherKey, h.id)).json;
    const f1 = await fail(t.researcherKey, h.id, c1.claim_id);
    expect(f1.json).toMatchObject({ status: "pending", attempt: 1, last_error: { message: "the source timed out", attempt: 1 } });
    const c2 = (await claim(t.researcherKey, h.id)).json;
    expect(c2.attempt).toBe(2);
    const f2 = await fail(t.researcherKey, h.id, c2.claim_id);
    expect(f2.json).toMatchObject({ status: "dead", dead_reason: "attempts", attempt: 2 });
    expect((await claim(t.researcherKey, h.id)).json.code).toBe("handoff_not_pending");

    const dead = await events(t.workspace.id, "handoff.dead");
    expect(dead.map((e) => e.agentId).sort()).toEqual([t.planner.id, t.researcher.id].sort());
    expect((await api("/api/v1/handoffs?status=dead", { key: t.plannerKey })).json.data.map((x: { id: string }) => x.id)).toEqual([h.id]);
  });

  it("dead at once when the worker says not to retry, and dead when the last claim lapses", async () => {
    const t = await team();
    const a = (await send(t)).json;
    const ca = (await claim(t.researcherKey, a.id)).json;
    expect((await fail(t.researcherKey, a.id, ca.claim_id, false)).json).toMatchObject({ status: "dead", dead_reason: "failed", attempt: 1 });

    const b = (await send(t, { max_attempts: 1 })).json;
    await claim(t.researcherKey, b.id);
    await lapseClaim(b.id);
    await settleHandoffs();
    expect((await api(`/api/v1/handoffs/${b.id}`, { key: t.plannerKey })).json).toMatchObject({ status: "dead", dead_reason: "attempts" });
  });

  it("expires at its deadline, whatever its state, and tells the sender", async () => {
    const t = await team();
    const h = (await send(t, { expires_in_seconds: 3600 })).json;
    const c = (await claim(t.researcherKey, h.id)).json;
    const db = await getDb();
    await db.execute(sql`update handoffs set expires_at = now() - interval '1 second' where id = ${h.id}`);
    expect((await complete(t.researcherKey, h.id, c.claim_id)).json.code).toBe("handoff_claim_lost");
    await settleHandoffs();
    expect((await api(`/api/v1/handoffs/${h.id}`, { key: t.plannerKey })).json.status).toBe("expired");
    const [expired] = await events(t.workspace.id, "handoff.expired");
    expect(expired).toMatchObject({ agentId: t.planner.id });
  });

  it("the database's envelope JSON (webhooks) equals the API's for every state", async () => {
    const t = await team();
    const a = (await send(t, { expires_in_seconds: 600 })).json;
    const b = (await send(t)).json;
    await claim(t.researcherKey, b.id, { worker: "ünïcode ✓" });
    const c = (await send(t)).json;
    const cc = (await claim(t.researcherKey, c.id)).json;
    await fail(t.researcherKey, c.id, cc.claim_id, false);
    const db = await getDb();
    for (const id of [a.id, b.id, c.id]) {
      const [row] = await db.select().from(handoffs).where(eq(handoffs.id, id));
      const { rows } = await db.execute<{ j: unknown }>(sql`select agentdraft_handoff_json(h) as j from handoffs h where h.id = ${id}`);
      expect(jsonValue(rows[0]!.j)).toEqual(serializeHandoff(row!));
    }
    expect(await db.select().from(handoffBodies).where(eq(handoffBodies.workspaceId, t.workspace.id))).toHaveLength(3);
  });
});
