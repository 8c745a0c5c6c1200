// @suite pooled
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { InngestDouble, type Run } from "../../test/fakes/inngest-double";

// The deploy target, proven: the real functions that app/api/inngest/route.ts serves, called by a
// double of Inngest's executor (test/fakes/inngest-double.ts: `ts` scheduling, finish deadlines
// from the first execution, cancelOn, concurrency, retries, billing by runs plus steps), with the
// app's writes made over real HTTP and announced to the double's event API on loopback. Time in
// the double is virtual; the database's is not, so when the double's clock reaches an item's due
// time the scenario moves the item's due time to the database's now (`dueNow`), as if the wait had
// really passed.

const SIGNING_KEY = `signkey-test-${"5e".repeat(32)}`;
const double = new InngestDouble({ appId: "agentdraft", signingKey: SIGNING_KEY, quiesce: () => announcementsSent() });
const eventApi = await double.listen();
const SETTINGS = {
  JOB_RUNNER: "inngest",
  INNGEST_EVENT_KEY: "test-event-key",
  INNGEST_SIGNING_KEY: SIGNING_KEY,
  INNGEST_BASE_URL: eventApi,
  INNGEST_DEV: "0",
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32",
  API_RATE_LIMIT_BURST: "100000",
  API_RATE_LIMIT_PER_SECOND: "100000",
  API_WORKSPACE_RATE_LIMIT_BURST: "100000",
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000",
};
Object.assign(process.env, SETTINGS);

// The Inngest client and the functions read their settings when their modules load: load this
// file's modules afresh (database test files share their worker's modules).
vi.resetModules();
const { resetEnvCache } = await import("../../lib/platform/config/env");
const { announcementsSent, forgetArmedSweeps } = await import("../../lib/platform/jobs/schedule");
const { LOST_WORK_BOUND_MS } = await import("../../lib/platform/jobs/sweep");
const { MAX_EVENT_DELAY_MS } = await import("../../lib/platform/jobs/work");
const { queryable } = await import("../../db/transaction");
const { serveApiForTests } = await import("../../test/helpers/api-client");
const { newAgent, newKey, newWorkspace } = await import("../../test/helpers/fixtures");
const { startReceiver } = await import("../../test/helpers/webhook-receiver");
const route = await import("../../app/api/inngest/route");
const { inngestFunctions } = await import("./index");

const { api } = serveApiForTests();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  resetEnvCache();
  double.attach((req) => route.POST(req as never, undefined as never), inngestFunctions());
  receiver = await startReceiver();
});
afterAll(async () => {
  await announcementsSent();
  await receiver.close();
  await double.close();
  for (const k of Object.keys(SETTINGS)) delete process.env[k];
  resetEnvCache();
});
beforeEach(async () => {
  await announcementsSent();
  forgetArmedSweeps(); // each test is a fresh deployment's timeline
  double.reset();
});

const SECOND = 1000;
const MINUTE = 60 * SECOND;

async function tenant() {
  const { workspace } = await newWorkspace();
  const a = await newAgent(workspace.id, "agent-a");
  const b = await newAgent(workspace.id, "agent-b");
  const { key } = await newKey(workspace.id, { agent_id: a.id });
  return { workspace, a, b, key };
}

/** The database's side of time passing: the row is due now (or `overdueMs` ago). */
async function dueNow(table: "holds" | "leases" | "approvals" | "handoffs", id: string, overdueMs = 0) {
  const q = await queryable();
  await q.execute(sql`update ${sql.identifier(table)} set expires_at = now() - make_interval(secs => ${overdueMs / 1000}) where id = ${id}`);
}

async function status(table: "holds" | "leases" | "approvals" | "handoffs", id: string): Promise<string> {
  const q = await queryable();
  const { rows } = await q.execute<{ status: string }>(sql`select status from ${sql.identifier(table)} where id = ${id}`);
  return rows[0]!.status;
}

/** When (virtual) the run of `fnId` for item `id` executed its work step and it did something. */
function doneAt(fnId: string, id: string, did: (output: Record<string, unknown>) => boolean): number | undefined {
  const runs = double.runsOf(fnId).filter((r: Run) => r.event.data.id === id);
  for (const r of runs) for (const l of r.log) if (l.op === "StepRun" && l.name === "run" && l.data && did(l.data as Record<string, unknown>)) return l.at;
  return undefined;
}

describe("on Inngest, timers fire when due (the double of Inngest's executor drives the served functions)", () => {
  it("a hold, a lease, an approval and a handoff each expire within 2 s of due, though each waits longer than any run may last", async () => {
    const { b, key } = await tenant();
    const calendar = (await api("/api/v1/calendars", { key, body: { name: "Room" } })).json;
    const start = new Date(Date.now() + 30 * 86_400_000);
    const hold = (await api("/api/v1/holds", { key, body: { calendar_ids: [calendar.id], start_time: start.toISOString(), end_time: new Date(start.getTime() + 3_600_000).toISOString(), hold_ttl_seconds: 600 } })).json;
    const lease = (await api("/api/v1/leases", { key, body: { resource: "deploy:prod", ttl_seconds: 900 } })).json;
    const handoff = (await api("/api/v1/handoffs", { key, body: { to_agent_id: b.id, type: "report.write", body: {}, expires_in_seconds: 1800 } })).json;
    const approval = (await api("/api/v1/approvals", { key, body: { summary: "Refund A-7", evidence: {}, expires_in_seconds: 3600 } })).json;
    expect([hold.status, lease.status, handoff.status, approval.status]).toEqual(["held", "active", "pending", "pending"]);

    const timers = [
      { fn: "hold-expire", table: "holds" as const, id: hold.id, due: Date.parse(hold.expires_at), did: (o: Record<string, unknown>) => o.expired === true, after: "expired" },
      { fn: "lease-expire", table: "leases" as const, id: lease.id, due: Date.parse(lease.expires_at), did: (o: Record<string, unknown>) => o.expired === true, after: "expired" },
      { fn: "handoff-expire", table: "handoffs" as const, id: handoff.id, due: Date.parse(handoff.expires_at), did: (o: Record<string, unknown>) => o.settled === true, after: "expired" },
      { fn: "approval-expire", table: "approvals" as const, id: approval.id, due: Date.parse(approval.expires_at), did: (o: Record<string, unknown>) => o.expired === true, after: "expired" },
    ].sort((x, y) => x.due - y.due);
    for (const t of timers) {
      await double.advance(t.due - double.now - SECOND);
      expect(await status(t.table, t.id)).not.toBe("expired");
      await dueNow(t.table, t.id);
      await double.advance(3 * SECOND);
      expect({ item: t.fn, status: await status(t.table, t.id) }).toEqual({ item: t.fn, status: t.after });
      const at = doneAt(t.fn, t.id, t.did)!;
      expect(at - t.due).toBeGreaterThanOrEqual(0);
      expect(at - t.due).toBeLessThanOrEqual(2 * SECOND);
    }
    // No run was cut short by a deadline, and each timer was one run.
    expect(double.runs.filter((r) => r.cancelledBy === "finish timeout")).toEqual([]);
    for (const t of timers) expect(double.runsOf(t.fn).filter((r) => r.event.data.id === t.id)).toHaveLength(1);
  });

  it("a committed hold's timer is cancelled while it waits for its time (cancelOn on a run scheduled for later), an extended one keeps its new time", async () => {
    const { key } = await tenant();
    const calendar = (await api("/api/v1/calendars", { key, body: { name: "Room" } })).json;
    const place = (day: number) =>
      api("/api/v1/holds", { key, body: { calendar_ids: [calendar.id], start_time: new Date(Date.now() + day * 86_400_000).toISOString(), end_time: new Date(Date.now() + day * 86_400_000 + 3_600_000).toISOString(), hold_ttl_seconds: 600 } });
    const committed = (await place(40)).json;
    const extended = (await place(41)).json;
    await double.advance(MINUTE);
    expect((await api(`/api/v1/holds/${committed.id}/commit`, { key, method: "POST" })).status).toBe(200);
    const ext = await api(`/api/v1/holds/${extended.id}/extend`, { key, body: { hold_ttl_seconds: 1200 } });
    expect(ext.status).toBe(200);
    await double.advance(SECOND);
    const runsFor = (id: string) => double.runsOf("hold-expire").filter((r) => r.event.data.id === id);
    expect(runsFor(committed.id).map((r) => [r.status, r.cancelledBy, r.startedAt])).toEqual([["cancelled", "event", undefined]]);
    expect(runsFor(extended.id).map((r) => r.status).sort()).toEqual(["cancelled", "scheduled"]);
    const newDue = Date.parse(ext.json.expires_at);
    await double.advance(newDue - double.now - SECOND);
    await dueNow("holds", extended.id);
    await double.advance(3 * SECOND);
    expect(await status("holds", extended.id)).toBe("expired");
    expect(doneAt("hold-expire", extended.id, (o) => o.expired === true)! - newDue).toBeLessThanOrEqual(2 * SECOND);
  });

  it("an approval due in 20 days, beyond Inngest's longest delay (7 days on its free plan), hops every 6 days and expires within 2 s of due", async () => {
    const { key } = await tenant();
    const approval = (await api("/api/v1/approvals", { key, body: { summary: "Renew the lease", evidence: {}, expires_in_seconds: 20 * 86_400 } })).json;
    const due = Date.parse(approval.expires_at);
    await double.advance(0);
    const announced = double.events.filter((e) => e.name === "agentdraft/approval.expire");
    expect(announced).toHaveLength(1);
    expect(Math.abs(announced[0]!.ts - announced[0]!.receivedAt - MAX_EVENT_DELAY_MS)).toBeLessThan(5 * SECOND); // 6 days, not 20
    await double.advance(due - double.now - SECOND);
    expect(await status("approvals", approval.id)).toBe("pending");
    await dueNow("approvals", approval.id);
    await double.advance(3 * SECOND);
    expect(await status("approvals", approval.id)).toBe("expired");
    const at = doneAt("approval-expire", approval.id, (o) => o.expired === true)!;
    expect(at - due).toBeGreaterThanOrEqual(0);
    expect(at - due).toBeLessThanOrEqual(2 * SECOND);
    // Hops at 6, 12 and 18 days, then the run at its due time: each a run and one step.
    const runs = double.runsOf("approval-expire").filter((r) => r.event.data.id === approval.id);
    expect(runs.map((r) => r.output)).toEqual([{ notYet: true }, { notYet: true }, { notYet: true }, { expired: true }]);
    expect(runs.reduce((n, r) => n + 1 + r.log.filter((l) => l.op === "StepRun").length, 0)).toBe(8);
  });

  it("a webhook retry due in 5 minutes is delivered within 2 s of due, and billed as its runs and steps", async () => {
    const { key } = await tenant();
    let calls = 0;
    receiver.reply = () => ({ status: ++calls <= 2 ? 500 : 200 });
    const created = await api("/api/v1/webhook-endpoints", { key, body: { url: `${receiver.url}/hook`, event_types: ["hold.created"] } });
    expect(created.status, created.text).toBe(201);
    const endpoint = created.json;
    const calendar = (await api("/api/v1/calendars", { key, body: { name: "Room" } })).json;
    const start = new Date(Date.now() + 50 * 86_400_000);
    await api("/api/v1/holds", { key, body: { calendar_ids: [calendar.id], start_time: start.toISOString(), end_time: new Date(start.getTime() + 3_600_000).toISOString(), hold_ttl_seconds: 600 } });
    // The double's clock stands where the test last moved it, while the requests above took real
    // time (seconds, on a busy machine): the delivery's announcement is due at the real time it was
    // sent. Catch up to it, then a second: the first attempt, 500, retry in ~5 s.
    await double.advance(Math.max(0, Date.now() - double.now) + SECOND);
    const q = await queryable();
    const delivery = async () =>
      (await q.execute<{ id: string; attempts: number; status: string; next_attempt_at: Date | string | null }>(sql`select id, attempts, status, next_attempt_at from webhook_deliveries where endpoint_id = ${endpoint.id}`)).rows[0]!;
    for (const attempt of [2, 3]) {
      const d = await delivery();
      expect(d.attempts).toBe(attempt - 1);
      const due = new Date(d.next_attempt_at!).getTime();
      await double.advance(due - double.now - SECOND);
      await q.execute(sql`update webhook_deliveries set next_attempt_at = now() where id = ${d.id}`);
      await double.advance(3 * SECOND);
      const runs = double.runsOf("webhook-deliver").filter((r) => r.event.data.id === d.id);
      const at = runs.flatMap((r) => r.log.filter((l) => l.op === "StepRun" && l.name === "run").map((l) => l.at)).at(-1)!;
      expect(at - due).toBeGreaterThanOrEqual(0);
      expect(at - due).toBeLessThanOrEqual(2 * SECOND);
    }
    expect(await delivery()).toMatchObject({ attempts: 3, status: "succeeded" });
    expect(calls).toBe(3);
    // Three runs of one step each, the two failures with a "run-again" step: 3 + 3 + 2 executions.
    const runs = double.runsOf("webhook-deliver");
    expect(runs).toHaveLength(3);
    expect(runs.reduce((n, r) => n + 1 + r.log.filter((l) => l.op === "StepRun").length, 0)).toBe(8);
  });
});

describe("on Inngest, an idle deployment costs little and lets the database sleep", () => {
  it("after 10 idle minutes no function runs at all (so nothing queries the database), and an idle hour costs at most 10 executions", async () => {
    const start = double.now;
    await double.advance(3 * 60 * MINUTE);
    const calls = double.runs.filter((r) => r.startedAt !== undefined && r.startedAt >= start + 10 * MINUTE);
    expect(calls.map((r) => r.fn)).toEqual([]);
    for (let h = 0; h < 3; h++) {
      const inHour = double.executions(start + h * 60 * MINUTE) - double.executions(start + (h + 1) * 60 * MINUTE);
      expect(inHour).toBeLessThanOrEqual(10);
    }
  });

  it("work whose announcements were all lost (a crash right after a one-statement write commits) is still done within the stated bound of its due time", async () => {
    const { key } = await tenant();
    const calendar = (await api("/api/v1/calendars", { key, body: { name: "Room" } })).json;
    await announcementsSent();
    forgetArmedSweeps();
    double.reset(); // a fresh process on an idle deployment: nothing armed, nothing scheduled
    // The crash: every request the commit would have sent is lost; only what left before the statement arrives.
    double.drop = (batch) => batch.some((e) => e.name !== "agentdraft/sweep");
    const start = new Date(Date.now() + 60 * 86_400_000);
    const hold = (await api("/api/v1/holds", { key, body: { calendar_ids: [calendar.id], start_time: start.toISOString(), end_time: new Date(start.getTime() + 3_600_000).toISOString(), hold_ttl_seconds: 600 } })).json;
    await announcementsSent();
    double.drop = () => false;
    expect(double.events.map((e) => e.name)).toEqual(["agentdraft/sweep"]); // the sweep armed as the write started
    const due = Date.parse(hold.expires_at);
    expect(LOST_WORK_BOUND_MS).toBe(11 * MINUTE);
    await double.advance(due - double.now + SECOND);
    expect(await status("holds", hold.id)).toBe("held"); // no run: its event was lost
    // The database's side of the wait: the hold is as overdue as the sweeps will see it.
    await dueNow("holds", hold.id, 2 * MINUTE);
    await double.advance(due + LOST_WORK_BOUND_MS - double.now);
    expect(await status("holds", hold.id)).toBe("expired");
    const at = doneAt("hold-expire", hold.id, (o) => o.expired === true)!;
    expect(at - due).toBeLessThanOrEqual(LOST_WORK_BOUND_MS);
    // The sweep armed by the write, then the one it chained to for the hold's due time: two executions each.
    const sweeps = double.runsOf("sweep-overdue-work");
    expect(sweeps.length).toBeGreaterThanOrEqual(1);
    expect(sweeps.length).toBeLessThanOrEqual(2);
    for (const r of sweeps) expect(1 + r.log.filter((l) => l.op === "StepRun").length).toBe(2);
  });
});

describe("a write never waits for Inngest", () => {
  it("with an event API that does not answer, placing a hold answers all the same; the announcements arrive after", async () => {
    const { key } = await tenant();
    const calendar = (await api("/api/v1/calendars", { key, body: { name: "Room" } })).json;
    const place = async (day: number) => {
      const start = new Date(Date.now() + day * 86_400_000);
      const res = await api("/api/v1/holds", { key, body: { calendar_ids: [calendar.id], start_time: start.toISOString(), end_time: new Date(start.getTime() + 3_600_000).toISOString(), hold_ttl_seconds: 600 } });
      expect(res.status).toBe(201);
      return res.json.id as string;
    };
    const announced = () => double.events.filter((e) => e.name === "agentdraft/hold.expire").map((e) => (e.data as { id: string }).id);
    const quick: string[] = [];
    for (let i = 0; i < 5; i++) quick.push(await place(70 + i));
    await announcementsSent();
    expect(announced().sort()).toEqual([...quick].sort());
    // The event API now holds every send unanswered: each placing is answered regardless, and no
    // announcement of theirs has arrived when it is.
    let answer!: () => void;
    double.eventApiHeld = new Promise<void>((r) => (answer = r));
    const held: string[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        held.push(await place(80 + i));
        expect(announced().filter((id) => held.includes(id))).toEqual([]);
      }
      expect(double.eventApiHolding).toBeGreaterThan(0); // the sends were made, and wait on the event API
    } finally {
      double.eventApiHeld = null;
      answer();
      await announcementsSent();
    }
    // The announcements did arrive, after the answers.
    expect(announced().sort()).toEqual([...quick, ...held].sort());
  });
});
