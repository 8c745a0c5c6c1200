// @suite pooled moved-clock
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { overlappingBusy } from "../../../test/helpers/calendar-invariants";
import { getDb } from "../../../db/client";
import { auditEntries, holds, webhookEvents } from "../../../db/schema";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { expireHolds } from "./expire-holds";
import { holdSchema } from "./schemas";
import { jsonValue } from "../../../db/row-json";
import { newId } from "../../platform/ids";
import { onUtcDay } from "../../../test/helpers/clock";

setTestEnv({ HOLD_TTL_MIN_SECONDS: "1", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);

async function setup() {
  const { workspace } = await newWorkspace();
  const cal = await createCalendar(operatorActor(workspace.id), { name: "staging cluster" });
  const { key } = await newKey(workspace.id);
  return { workspace, cal, key };
}

const hold = (key: string, calId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api(`/api/v1/calendars/${calId}/holds`, { key, body: { hold_ttl_seconds: 60, ...body }, headers });

describe("placing holds", () => {
  it("grants a free slot, refuses an overlapping equal priority with what conflicts, allows back to back", async () => {
    const { cal, key } = await setup();
    const first = await hold(key, cal.id, { start_time: T(15), end_time: T(17), priority: 50, metadata: { purpose: "load test" } });
    expect(first.status).toBe(201);
    expect(holdSchema.strict().parse(first.json)).toMatchObject({ status: "held", calendar_ids: [cal.id], priority: 50, metadata: { purpose: "load test" } });

    const clash = await hold(key, cal.id, { start_time: T(16), end_time: T(18), priority: 50 });
    expect(clash.status).toBe(409);
    expect(clash.json.code).toBe("hold_conflict");
    expect(clash.json.conflicts).toEqual([expect.objectContaining({ type: "hold", id: first.json.id, priority: 50 })]);

    expect((await hold(key, cal.id, { start_time: T(17), end_time: T(18), priority: 50 })).status).toBe(201);
    expect((await hold(key, cal.id, { start_time: T(14), end_time: T(15), priority: 50 })).status).toBe(201);
  });

  it("refuses without writing: a refused placement takes no lock and no transaction id, a granted one does", async () => {
    const { workspace, cal, key } = await setup();
    expect((await hold(key, cal.id, { start_time: T(9), end_time: T(10), priority: 50 })).status).toBe(201);
    const actor = JSON.stringify({ workspace_id: workspace.id, type: "operator", id: "test", agent_id: null, trace_id: null, request_id: null });
    const db = await getDb();
    // In one transaction: the placement, then whether it was given a transaction id (any write, a row lock included, takes one).
    const attempt = (start: string, end: string) =>
      db.transaction(async (tx) => {
        const { rows } = await tx.execute<{ out: unknown }>(sql`
          select agentdraft_place_hold(${actor}::jsonb, ${newId("hold")}, ${sql.param([cal.id])}::text[], ${start}::timestamptz, ${end}::timestamptz, 50, 60, '{}'::jsonb) as out`);
        const xid = (await tx.execute<{ x: string | null }>(sql`select pg_current_xact_id_if_assigned()::text as x`)).rows[0]!.x;
        return { out: jsonValue<Record<string, unknown>>(rows[0]!.out), xid };
      });
    const refused = await attempt(T(9, 30), T(10, 30));
    expect(refused.out).toHaveProperty("conflicts");
    expect(refused.xid).toBeNull();
    const granted = await attempt(T(10), T(11));
    expect(granted.out).toHaveProperty("hold");
    expect(granted.xid).not.toBeNull();
  });

  it("preempts strictly lower live holds, tells their agent, and is refused by higher ones", async () => {
    const { workspace, cal } = await setup();
    const low = await newAgent(workspace.id, "low");
    const high = await newAgent(workspace.id, "high");
    const { key: lowKey } = await newKey(workspace.id, { agent_id: low.id });
    const { key: highKey } = await newKey(workspace.id, { agent_id: high.id });

    const lowHold = (await hold(lowKey, cal.id, { start_time: T(10), end_time: T(12), priority: 10 })).json;
    const refused = await hold(lowKey, cal.id, { start_time: T(11), end_time: T(13), priority: 10 });
    expect(refused.status).toBe(409);

    const highHold = await hold(highKey, cal.id, { start_time: T(11), end_time: T(12), priority: 90 });
    expect(highHold.status).toBe(201);
    const displaced = (await api(`/api/v1/holds/${lowHold.id}`, { key: lowKey })).json;
    expect(displaced).toMatchObject({ status: "preempted", preempted_by: { hold_id: highHold.json.id, priority: 90 } });

    const db = await getDb();
    const [event] = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "hold.preempted")));
    expect(event).toMatchObject({ agentId: low.id, data: { hold: { id: lowHold.id }, preempted_by: { hold_id: highHold.json.id, priority: 90 } } });

    // The preempted hold can be neither committed nor extended.
    const commit = await api(`/api/v1/holds/${lowHold.id}/commit`, { key: lowKey, method: "POST" });
    expect(commit.status).toBe(409);
    expect(commit.json.code).toBe("hold_preempted");
    expect((await hold(lowKey, cal.id, { start_time: T(11), end_time: T(12), priority: 89 })).json.code).toBe("hold_conflict");
  });

  it("commits a live hold into an event that blocks every later hold, until cancelled", async () => {
    const { workspace, cal, key } = await setup();
    const h = (await hold(key, cal.id, { start_time: T(9), end_time: T(10), priority: 30 })).json;
    const committed = await api(`/api/v1/holds/${h.id}/commit`, { key, method: "POST" });
    expect(committed.status).toBe(200);
    expect(committed.json.status).toBe("committed");
    expect(committed.json.event_ids).toHaveLength(1);
    // Committing again is a no-op returning the same events.
    expect((await api(`/api/v1/holds/${h.id}/commit`, { key, method: "POST" })).json.event_ids).toEqual(committed.json.event_ids);

    const blocked = await hold(key, cal.id, { start_time: T(9, 30), end_time: T(11), priority: 100 });
    expect(blocked.status).toBe(409);
    expect(blocked.json.conflicts).toEqual([expect.objectContaining({ type: "event", id: committed.json.event_ids[0] })]);

    const events = await api(`/api/v1/calendars/${cal.id}/events`, { key });
    expect(events.json.data).toEqual([expect.objectContaining({ id: committed.json.event_ids[0], hold_id: h.id, status: "confirmed" })]);

    const cancelled = await api(`/api/v1/events/${committed.json.event_ids[0]}`, { key, method: "DELETE" });
    expect(cancelled.json.status).toBe("cancelled");
    expect((await hold(key, cal.id, { start_time: T(9, 30), end_time: T(11), priority: 1 })).status).toBe(201);

    const db = await getDb();
    const types = (await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id)).orderBy(webhookEvents.createdAt, webhookEvents.id)).map((e) => e.type);
    expect(types).toEqual(["hold.created", "hold.committed", "event.cancelled", "hold.created"]);
  });

  it("reports free/busy with live holds and events", async () => {
    const { cal, key } = await setup();
    const h = (await hold(key, cal.id, { start_time: T(10), end_time: T(11), priority: 40 })).json;
    const res = await api(`/api/v1/calendars/${cal.id}/availability?from=${T(8)}&to=${T(12)}`, { key });
    expect(res.status).toBe(200);
    expect(res.json.busy).toEqual([expect.objectContaining({ kind: "hold", id: h.id, priority: 40, start_time: T(10), end_time: T(11) })]);
    expect(res.json.free).toEqual([
      { start_time: T(8), end_time: T(10) },
      { start_time: T(11), end_time: T(12) },
    ]);
  });
});

describe("expiry", () => {
  it("a hold is dead the instant its TTL passes: not committable, time free, before any job runs", async () => {
    const { workspace, cal, key } = await setup();
    const h = (await hold(key, cal.id, { start_time: T(13), end_time: T(14), hold_ttl_seconds: 1 })).json;
    await new Promise((r) => setTimeout(r, 1100));

    const commit = await api(`/api/v1/holds/${h.id}/commit`, { key, method: "POST" });
    expect(commit.status).toBe(409);
    expect(commit.json.code).toBe("hold_expired");
    expect((await api(`/api/v1/holds/${h.id}/extend`, { key, body: {} })).json.code).toBe("hold_expired");
    expect((await api(`/api/v1/holds/${h.id}`, { key })).json.status).toBe("expired");
    expect((await hold(key, cal.id, { start_time: T(13), end_time: T(14) })).status).toBe(201);

    // The job then records it and tells the agent.
    // Its count would include other files' holds, and another file's run may expire this one first (one database): this hold's outcome is checked below.
    await expireHolds();
    const db = await getDb();
    const [row] = await db.select().from(holds).where(eq(holds.id, h.id));
    expect(row!.status).toBe("expired");
    const expired = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspace.id), eq(webhookEvents.type, "hold.expired")));
    expect(expired.map((e) => (e.data as { hold: { id: string } }).hold.id)).toEqual([h.id]);
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "hold.expired")));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorType).toBe("system");
  });

  it("extend keeps a live hold alive for another TTL", async () => {
    const { cal, key } = await setup();
    const h = (await hold(key, cal.id, { start_time: T(20), end_time: T(21), hold_ttl_seconds: 2 })).json;
    const extended = await api(`/api/v1/holds/${h.id}/extend`, { key, body: { hold_ttl_seconds: 120 } });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.json.expires_at) - Date.now()).toBeGreaterThan(100_000);
  });
});

describe("who may change a hold", () => {
  it("only the hold's own agent or a workspace-wide key may extend, commit or release it", async () => {
    const { workspace, cal, key: workspaceKey } = await setup();
    const a = await newAgent(workspace.id, "a");
    const b = await newAgent(workspace.id, "b");
    const { key: keyA } = await newKey(workspace.id, { agent_id: a.id });
    const { key: keyB } = await newKey(workspace.id, { agent_id: b.id });
    const h = (await hold(keyA, cal.id, { start_time: T(8), end_time: T(9) })).json;
    expect(h.agent_id).toBe(a.id);
    // Another agent's hold is not found (SPEC §1: never 403, which would confirm it exists).
    for (const action of ["extend", "commit", "release"]) {
      const res = await api(`/api/v1/holds/${h.id}/${action}`, { key: keyB, method: "POST" });
      expect(res.status).toBe(404);
    }
    expect((await api(`/api/v1/holds/${h.id}/release`, { key: workspaceKey, method: "POST" })).json.status).toBe("released");
    // Released is final: commit says so.
    expect((await api(`/api/v1/holds/${h.id}/commit`, { key: keyA, method: "POST" })).json.code).toBe("hold_not_active");
  });

  it("another workspace's calendars and holds are not found", async () => {
    const { cal, key } = await setup();
    const other = await setup();
    const h = (await hold(key, cal.id, { start_time: T(8), end_time: T(9) })).json;
    expect((await hold(other.key, cal.id, { start_time: T(8), end_time: T(9) })).status).toBe(404);
    expect((await api(`/api/v1/holds/${h.id}`, { key: other.key })).status).toBe(404);
    expect((await api(`/api/v1/holds/${h.id}/commit`, { key: other.key, method: "POST" })).status).toBe(404);
  });
});

describe("multi-calendar holds", () => {
  it("hold all calendars or none", async () => {
    const { workspace, cal, key } = await setup();
    const room = await createCalendar(operatorActor(workspace.id), { name: "room" });
    expect((await hold(key, room.id, { start_time: T(10), end_time: T(11), priority: 80 })).status).toBe(201);

    const both = await api("/api/v1/holds", { key, body: { calendar_ids: [cal.id, room.id], start_time: T(10), end_time: T(12), priority: 50, hold_ttl_seconds: 60 } });
    expect(both.status).toBe(409);
    const onCal = await api(`/api/v1/holds?calendar_id=${cal.id}`, { key });
    expect(onCal.json.data).toEqual([]);

    const missing = await api("/api/v1/holds", { key, body: { calendar_ids: [cal.id, "cal_00000000000000000000000000"], start_time: T(12), end_time: T(13) } });
    expect(missing.status).toBe(404);

    const ok = await api("/api/v1/holds", { key, body: { calendar_ids: [room.id, cal.id], start_time: T(11), end_time: T(12) } });
    expect(ok.status).toBe(201);
    expect(ok.json.calendar_ids).toEqual([cal.id, room.id].sort());
    const committed = await api(`/api/v1/holds/${ok.json.id}/commit`, { key, method: "POST" });
    expect(committed.json.event_ids).toHaveLength(2);
  });
});

describe("bad input changes nothing", () => {
  it.each([
    ["end before start", { start_time: T(12), end_time: T(11) }, "end_time"],
    ["equal times", { start_time: T(12), end_time: T(12) }, "end_time"],
    ["unparseable time", { start_time: "tomorrow at 3", end_time: T(11) }, "start_time"],
    ["time without zone", { start_time: T(10).slice(0, 19), end_time: T(11) }, "start_time"],
    ["priority above 100", { start_time: T(10), end_time: T(11), priority: 101 }, "priority"],
    ["fractional priority", { start_time: T(10), end_time: T(11), priority: 5.5 }, "priority"],
    ["TTL above the bound", { start_time: T(10), end_time: T(11), hold_ttl_seconds: 7200 }, "hold_ttl_seconds"],
    ["metadata not an object", { start_time: T(10), end_time: T(11), metadata: [1, 2] }, "metadata"],
  ])("%s → 400 naming %s", async (_name, body, field) => {
    const { cal, key } = await setup();
    const res = await api(`/api/v1/calendars/${cal.id}/holds`, { key, body });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("validation_failed");
    expect(res.json.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await api(`/api/v1/holds?calendar_id=${cal.id}`, { key })).json.data).toEqual([]);
  });

  it("the exclusion constraint refuses overlapping confirmed events even when code is bypassed", async () => {
    const { workspace, cal } = await setup();
    const db = await getDb();
    const insert = (id: string, start: string, end: string) =>
      db.execute(sql`insert into calendar_events (id, workspace_id, calendar_id, start_time, end_time, status, metadata)
                     values (${id}, ${workspace.id}, ${cal.id}, ${start}, ${end}, 'confirmed', '{}')`);
    await insert("evt_direct_1", T(1), T(3));
    await expect(insert("evt_direct_2", T(2), T(4))).rejects.toThrow();
    await insert("evt_direct_3", T(3), T(4)); // back to back is fine
  });
});

describe("idempotent retries", () => {
  it("return the same hold and place it once", async () => {
    const { cal, key } = await setup();
    const headers = { "idempotency-key": "hold-retry-1" };
    const a = await hold(key, cal.id, { start_time: T(7), end_time: T(8) }, headers);
    const b = await hold(key, cal.id, { start_time: T(7), end_time: T(8) }, headers);
    expect(a.status).toBe(201);
    expect(b.json).toEqual(a.json);
    expect((await api(`/api/v1/holds?calendar_id=${cal.id}`, { key })).json.data).toHaveLength(1);
  });
});

describe("under concurrency", () => {
  it("60 clients racing for one slot at equal priority end with exactly one winner", async () => {
    const { workspace, cal, key } = await setup();
    const results = await Promise.all(Array.from({ length: 60 }, () => hold(key, cal.id, { start_time: T(15), end_time: T(17), priority: 50 })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.json.code === "hold_conflict")).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(59);
    expect(await overlappingBusy(workspace.id)).toEqual([]);
  });

  it("distinct priorities racing end with the highest holding", async () => {
    const { workspace, cal, key } = await setup();
    const priorities = Array.from({ length: 40 }, (_, i) => (i * 37) % 101).filter((p, i, all) => all.indexOf(p) === i);
    const results = await Promise.all(priorities.map((priority) => hold(key, cal.id, { start_time: T(15), end_time: T(16), priority })));
    const live = (await api(`/api/v1/holds?calendar_id=${cal.id}&status=held`, { key })).json.data;
    expect(live.map((h: { priority: number }) => h.priority)).toEqual([Math.max(...priorities)]);
    expect(results.every((r) => r.status === 201 || r.json.code === "hold_conflict")).toBe(true);
    expect(await overlappingBusy(workspace.id)).toEqual([]);
  });

  it("multi-calendar holds taken in opposite orders do not deadlock and never leave partial holds", async () => {
    const { workspace, key } = await setup();
    const cals = await Promise.all(["a", "b", "c"].map((name) => createCalendar(operatorActor(workspace.id), { name })));
    const ids = cals.map((c) => c.id);
    const orders = [ids, [...ids].reverse(), [ids[1], ids[0], ids[2]], [ids[2], ids[0], ids[1]]];
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        api("/api/v1/holds", { key, body: { calendar_ids: orders[i % 4], start_time: T(10), end_time: T(11), priority: 50, hold_ttl_seconds: 60 } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.every((r) => r.status === 201 || r.json.code === "hold_conflict")).toBe(true);
    const db = await getDb();
    const rows = await db.select().from(holds).where(eq(holds.workspaceId, workspace.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.calendarIds).toEqual([...ids].sort());
    expect(await overlappingBusy(workspace.id)).toEqual([]);
  });
});
