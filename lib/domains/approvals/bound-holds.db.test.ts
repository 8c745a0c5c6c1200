// @suite pooled moved-clock
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { approvals, calendarEvents, holds, webhookEvents } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { overlappingBusy } from "../../../test/helpers/calendar-invariants";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { expireHolds } from "../holds/expire-holds";
import { decideApproval } from "./decide-approval";
import { expireApprovals } from "./approvals";
import { onUtcDay } from "../../../test/helpers/clock";

setTestEnv({ HOLD_TTL_MIN_SECONDS: "1", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const T = onUtcDay(30);

/** The seeds' staging scenario: a deploy agent, a second agent, the staging calendar, an approver. */
async function setup() {
  const { workspace } = await newWorkspace();
  const staging = await createCalendar(operatorActor(workspace.id), { name: "staging cluster" });
  const deployer = await newAgent(workspace.id, "deployer");
  const other = await newAgent(workspace.id, "tester");
  const { key } = await newKey(workspace.id, { agent_id: deployer.id });
  const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id });
  const approver = await newMember(workspace.id, "approver");
  return { workspace, staging, deployer, other, key, otherKey, approver };
}
type Ctx = Awaited<ReturnType<typeof setup>>;
const placeHold = (ctx: Ctx, key: string, body: Record<string, unknown> = {}) =>
  api(`/api/v1/calendars/${ctx.staging.id}/holds`, { key, body: { start_time: T(9), end_time: T(10), priority: 50, hold_ttl_seconds: 1, ...body } });
const ask = (key: string, holdIds: string[], extra: Record<string, unknown> = {}) =>
  api("/api/v1/approvals", { key, body: { summary: "Run the migration on staging", evidence: { migration: "0042" }, hold_ids: holdIds, ...extra } });
const resolvedEvent = async (workspaceId: string) => {
  const db = await getDb();
  const [e] = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, "approval.resolved")));
  return e?.data as { status: string; holds: { hold_id: string; outcome: string; preempted_by: unknown; event_ids?: string[] }[] } | undefined;
};

describe("holds bound to an approval", () => {
  it("outlive their own TTL while it is pending, up to the hold TTL cap (the expiry job leaves them, others are refused) and are committed by the deciding vote", async () => {
    const ctx = await setup();
    const hold = await placeHold(ctx, ctx.key, { hold_ttl_seconds: 3 }); // long enough to bind on a loaded machine
    expect(hold.status).toBe(201);
    const approval = await ask(ctx.key, [hold.json.id]);
    expect(approval.status, JSON.stringify(approval.json)).toBe(201);
    expect(approval.json).toMatchObject({ hold_ids: [hold.json.id], on_approve: "commit", holds: [{ hold_id: hold.json.id, status: "held", event_ids: [] }] });
    // Kept to the hold TTL cap (HOLD_TTL_MAX_SECONDS, 3600 here) from binding, not for the approval's day.
    const keptUntil = Date.parse(approval.json.holds[0].expires_at);
    expect(keptUntil).toBeLessThan(Date.parse(approval.json.expires_at));
    expect(keptUntil - Date.parse(approval.json.created_at)).toBeGreaterThanOrEqual(3600_000);
    expect(keptUntil - Date.now()).toBeLessThanOrEqual(3600_000);

    await sleep(3200); // past the hold's own TTL
    await expireHolds(); // other files' holds may expire meanwhile (one database): this one must not
    const seen = await api(`/api/v1/holds/${hold.json.id}`, { key: ctx.key });
    expect(seen.json).toMatchObject({ status: "held", approval_id: approval.json.id, expires_at: approval.json.holds[0].expires_at });
    const refused = await placeHold(ctx, ctx.otherKey, { hold_ttl_seconds: 60 });
    expect(refused.status).toBe(409);
    expect(refused.json.conflicts).toEqual([expect.objectContaining({ id: hold.json.id, agent_id: null })]);
    const free = await api(`/api/v1/calendars/${ctx.staging.id}/availability?from=${T(8)}&to=${T(11)}`, { key: ctx.otherKey });
    expect(JSON.stringify(free.json)).toContain(hold.json.id);
    // The agent cannot commit it behind the approver's back; extending never shortens it.
    expect((await api(`/api/v1/holds/${hold.json.id}/commit`, { key: ctx.key, method: "POST" })).json.code).toBe("hold_awaiting_approval");
    expect((await api(`/api/v1/holds/${hold.json.id}/extend`, { key: ctx.key, body: { hold_ttl_seconds: 5 } })).json.expires_at).toBe(approval.json.holds[0].expires_at);

    await decideApproval(ctx.approver.actor, approval.json.id, "approve", "go");
    const after = await api(`/api/v1/approvals/${approval.json.id}`, { key: ctx.key });
    expect(after.json.status).toBe("approved");
    expect(after.json.holds[0]).toMatchObject({ hold_id: hold.json.id, status: "committed", event_ids: [expect.stringMatching(/^evt_/)] });
    expect((await api(`/api/v1/holds/${hold.json.id}`, { key: ctx.key })).json.status).toBe("committed");
    const event = await resolvedEvent(ctx.workspace.id);
    expect(event!.holds).toEqual([expect.objectContaining({ hold_id: hold.json.id, outcome: "committed", event_ids: after.json.holds[0].event_ids })]);
    expect(await overlappingBusy(ctx.workspace.id)).toEqual([]);
  });

  it("on_approve: hold keeps them with a fresh TTL", async () => {
    const ctx = await setup();
    const hold = await placeHold(ctx, ctx.key, { hold_ttl_seconds: 30 });
    const approval = await ask(ctx.key, [hold.json.id], { on_approve: "hold" });
    await decideApproval(ctx.approver.actor, approval.json.id, "approve");
    const kept = await api(`/api/v1/holds/${hold.json.id}`, { key: ctx.key });
    expect(kept.json.status).toBe("held");
    const left = Date.parse(kept.json.expires_at) - Date.now();
    expect(left).toBeGreaterThan(20_000);
    expect(left).toBeLessThanOrEqual(30_500);
    expect((await api(`/api/v1/holds/${hold.json.id}/commit`, { key: ctx.key, method: "POST" })).status).toBe(200);
  });

  it("are released when it is denied, cancelled or expires", async () => {
    for (const end of ["denied", "cancelled", "expired"] as const) {
      const ctx = await setup();
      const hold = await placeHold(ctx, ctx.key, { hold_ttl_seconds: 60 });
      const approval = await ask(ctx.key, [hold.json.id]);
      if (end === "denied") await decideApproval(ctx.approver.actor, approval.json.id, "deny", "not today");
      if (end === "cancelled") expect((await api(`/api/v1/approvals/${approval.json.id}/cancel`, { key: ctx.key, method: "POST" })).status).toBe(200);
      if (end === "expired") {
        const db = await getDb();
        // The approval's time runs out (and with it the bound hold's); then its expiry job runs.
        await db.update(approvals).set({ expiresAt: sql`clock_timestamp() - interval '1 second'` }).where(eq(approvals.id, approval.json.id));
        await db.update(holds).set({ expiresAt: sql`clock_timestamp() - interval '1 second'` }).where(eq(holds.id, hold.json.id));
        // Counts would include other files' items (one database): the outcome below is this hold's.
        await expireHolds();
        await expireApprovals();
      }
      expect((await api(`/api/v1/holds/${hold.json.id}`, { key: ctx.key })).json.status, end).toBe("released");
      expect((await resolvedEvent(ctx.workspace.id))!.holds, end).toEqual([expect.objectContaining({ hold_id: hold.json.id, outcome: "released" })]);
      expect((await placeHold(ctx, ctx.otherKey, { hold_ttl_seconds: 60 })).status, end).toBe(201);
    }
  });

  it("a preemptor still takes the time; the approval names the preempted hold and approving commits nothing", async () => {
    const ctx = await setup();
    const hold = await placeHold(ctx, ctx.key, { priority: 40 });
    const approval = await ask(ctx.key, [hold.json.id]);
    await sleep(1200);
    const winner = await placeHold(ctx, ctx.otherKey, { priority: 90, hold_ttl_seconds: 60 });
    expect(winner.status).toBe(201);
    const shown = await api(`/api/v1/approvals/${approval.json.id}`, { key: ctx.key });
    expect(shown.json.holds[0]).toMatchObject({ status: "preempted", preempted_by: { hold_id: winner.json.id, priority: 90 } });
    await decideApproval(ctx.approver.actor, approval.json.id, "approve");
    expect((await resolvedEvent(ctx.workspace.id))!.holds).toEqual([
      expect.objectContaining({ hold_id: hold.json.id, outcome: "preempted", preempted_by: { hold_id: winner.json.id, priority: 90 } }),
    ]);
    const db = await getDb();
    expect(await db.select().from(calendarEvents).where(eq(calendarEvents.holdId, hold.json.id))).toEqual([]);
  });

  it("binding refuses another agent's hold, a dead hold and one already waiting, creating nothing", async () => {
    const ctx = await setup();
    const theirs = await placeHold(ctx, ctx.otherKey, { hold_ttl_seconds: 60 });
    expect((await ask(ctx.key, [theirs.json.id])).status).toBe(404);
    const dead = await placeHold(ctx, ctx.key, { start_time: T(12), end_time: T(13) });
    await sleep(1200);
    const refusedDead = await ask(ctx.key, [dead.json.id]);
    expect(refusedDead.status).toBe(409);
    expect(refusedDead.json.code).toBe("hold_not_active");
    const mine = await placeHold(ctx, ctx.key, { start_time: T(14), end_time: T(15), hold_ttl_seconds: 60 });
    expect((await ask(ctx.key, [mine.json.id])).status).toBe(201);
    const twice = await ask(ctx.key, [mine.json.id]);
    expect(twice.status).toBe(409);
    expect((await ask(ctx.key, [mine.json.id, mine.json.id])).status).toBe(400);
    const db = await getDb();
    expect(await db.select().from(approvals).where(eq(approvals.workspaceId, ctx.workspace.id))).toHaveLength(1);
    // A workspace-wide key may bind any agent's hold of its workspace.
    const { key: wide } = await newKey(ctx.workspace.id);
    expect((await ask(wide, [theirs.json.id])).status).toBe(201);
  });

  it("decided after the TTL while preemptors race and the expiry job runs: committed at most once, never overlapping", async () => {
    for (let round = 0; round < 3; round++) {
      const ctx = await setup();
      const hold = await placeHold(ctx, ctx.key, { priority: 60 });
      const approval = await ask(ctx.key, [hold.json.id]);
      await sleep(1100);
      const rivals = await Promise.all(Array.from({ length: 8 }, () => newAgent(ctx.workspace.id).then((a) => newKey(ctx.workspace.id, { agent_id: a.id })).then((k) => k.key)));
      const racing = await Promise.all([
        decideApproval(ctx.approver.actor, approval.json.id, "approve"),
        expireHolds(),
        ...rivals.map((k, i) => placeHold(ctx, k, { priority: round === 2 ? 60 + i : 60, hold_ttl_seconds: 30 })),
      ]);
      const placements = racing.slice(2) as { status: number }[];
      const final = (await api(`/api/v1/holds/${hold.json.id}`, { key: ctx.key })).json;
      const db = await getDb();
      const events = await db.select().from(calendarEvents).where(eq(calendarEvents.holdId, hold.json.id));
      if (final.status === "committed") expect(events).toHaveLength(1);
      else {
        expect(final.status).toBe("preempted");
        expect(events).toHaveLength(0);
      }
      // Equal priorities never take a live bound hold's time.
      if (round < 2) {
        expect(final.status).toBe("committed");
        expect(placements.every((p) => p.status === 409)).toBe(true);
      }
      expect(await overlappingBusy(ctx.workspace.id)).toEqual([]);
      const outcome = (await resolvedEvent(ctx.workspace.id))!.holds[0]!.outcome;
      expect(outcome).toBe(final.status);
    }
  });
});
