import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { approvals, calendarEvents, holds, webhookEvents } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { overlappingBusy } from "../../../test/helpers/calendar-invariants";
import { mulberry32 } from "../../../test/helpers/seeded-random";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { expireHolds } from "../holds/expire-holds";
import { decideApproval } from "./decide-approval";
import { expireApprovals } from "./approvals";
import { env } from "../../platform/config/env";

setTestEnv({ HOLD_TTL_MIN_SECONDS: "1", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Holds bound to a live pending approval that are neither preempted nor live until the approval's
 * expiry or the hold TTL cap from binding, whichever is first (a person may keep them longer), and
 * holds waiting for two pending approvals (there must never be any).
 */
async function boundViolations(workspaceId: string) {
  const db = await getDb();
  const cap = env().HOLD_TTL_MAX_SECONDS;
  const { rows: dropped } = await db.execute<{ hold: string; status: string }>(sql`
    select h.id as hold, h.status from approvals a join holds h on h.id = any(a.hold_ids)
    where a.workspace_id = ${workspaceId} and a.status = 'pending' and a.expires_at > clock_timestamp()
      and a.created_at + make_interval(secs => ${cap}) > clock_timestamp()
      and not (h.status = 'preempted' or (h.status = 'held' and h.expires_at >= least(a.expires_at, a.created_at + make_interval(secs => ${cap}))))`);
  const { rows: twice } = await db.execute<{ hold: string }>(sql`
    select hid as hold from approvals a cross join unnest(a.hold_ids) hid
    where a.workspace_id = ${workspaceId} and a.status = 'pending' group by hid having count(*) > 1`);
  return [...dropped, ...twice];
}

/** An approval's time runs out now (the shortest a caller may ask is a minute), and with it its bound holds', in one transaction. */
async function runOut(approvalId: string) {
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.update(approvals).set({ expiresAt: sql`now() - interval '1 second'` }).where(sql`${approvals.id} = ${approvalId} and ${approvals.status} = 'pending'`);
    await tx.update(holds).set({ expiresAt: sql`now() - interval '1 second'` }).where(sql`${holds.approvalId} = ${approvalId} and ${holds.status} = 'held'`);
  });
}

describe("randomized holds bound to approvals", () => {
  it("agents place, bind and cancel while people decide, preemptors race and the expiry jobs run: never overlapping, a waiting hold stays, each approval settles its holds once", { timeout: 180_000 }, async () => {
    const seed = Number(process.env.BOUND_HOLDS_SEED ?? Date.now() % 100_000);
    const random = mulberry32(seed);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    console.log(`randomized bound holds run, seed ${seed} (BOUND_HOLDS_SEED=${seed} reproduces the choices)`);

    const { workspace } = await newWorkspace();
    const operator = operatorActor(workspace.id);
    const calendars = await Promise.all(["staging", "production"].map((name) => createCalendar(operator, { name })));
    const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => newAgent(workspace.id, `agent-${i}`)));
    const keys = await Promise.all(agents.map((a) => newKey(workspace.id, { agent_id: a.id }).then((k) => k.key)));
    const people = await Promise.all([newMember(workspace.id, "approver"), newMember(workspace.id, "approver")]);
    // Eight one-hour slots on a day a year from now (any date the test runs on).
    const day = new Date(Date.now() + 400 * 86_400_000);
    day.setUTCHours(9, 0, 0, 0);
    const slot = (i: number) => ({ start_time: new Date(day.getTime() + i * 3_600_000).toISOString(), end_time: new Date(day.getTime() + (i + 1) * 3_600_000).toISOString() });

    const violations: unknown[] = [];
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const asked: { id: string; onApprove: string; holdIds: string[] }[] = [];
    let running = true;
    const checker = (async () => {
      while (running) {
        violations.push(...(await overlappingBusy(workspace.id)), ...(await boundViolations(workspace.id)));
        await sleep(30);
      }
    })();

    const agent = async (key: string) => {
      const mine: string[] = [];
      const myApprovals: string[] = [];
      for (let op = 0; op < 20; op++) {
        const r = random();
        if (r < 0.4 || mine.length === 0) {
          const cals = random() < 0.7 ? [pick(calendars).id] : calendars.map((c) => c.id);
          const res = await api("/api/v1/holds", {
            key,
            body: { ...slot(Math.floor(random() * 8)), calendar_ids: cals, priority: 30 + Math.floor(random() * 61), hold_ttl_seconds: 2 + Math.floor(random() * 5) },
          });
          count(res.status);
          if (res.status === 201) mine.push(res.json.id);
        } else if (r < 0.75) {
          const holdIds = [...new Set([pick(mine), ...(random() < 0.3 ? [pick(mine)] : [])])];
          const onApprove = random() < 0.7 ? "commit" : "hold";
          const res = await api("/api/v1/approvals", { key, body: { summary: "Run it", evidence: {}, hold_ids: holdIds, on_approve: onApprove, expires_in_seconds: 60 } });
          count(res.status);
          if (res.status === 201) {
            asked.push({ id: res.json.id, onApprove, holdIds });
            myApprovals.push(res.json.id);
          }
        } else if (r < 0.85 && myApprovals.length) {
          const res = await api(`/api/v1/approvals/${pick(myApprovals)}/cancel`, { key, method: "POST" });
          count(res.status);
        } else if (r < 0.93) {
          const res = await api(`/api/v1/holds/${pick(mine)}/commit`, { key, method: "POST" });
          count(res.status);
        } else if (r < 0.97 && myApprovals.length) {
          await runOut(pick(myApprovals));
        } else {
          await (random() < 0.5 ? expireHolds() : expireApprovals());
        }
      }
    };
    const person = async (who: (typeof people)[number]) => {
      for (let op = 0; op < 30; op++) {
        await sleep(50 + Math.floor(random() * 100));
        const open = asked.filter(() => random() < 0.3);
        for (const a of open) {
          await decideApproval(who.actor, a.id, random() < 0.75 ? "approve" : "deny", "random decision").catch((err: { code?: string }) => {
            if (err.code !== "conflict") throw err; // already decided, or this person already voted
          });
        }
      }
    };
    await Promise.all([...keys.map(agent), ...people.map(person)]);
    // What nobody decided runs out of time, while the last decisions race the expiry job.
    await Promise.all(asked.map((a, i) => (i % 2 ? runOut(a.id) : decideApproval(people[0]!.actor, a.id, "deny", "too late").catch(() => undefined))));
    await sleep(2100); // every unbound hold's time has run out too
    await Promise.all([expireApprovals(), expireHolds()]);
    await expireApprovals();
    await expireHolds();
    running = false;
    await checker;

    console.log("statuses", Object.fromEntries(statuses), "approvals", asked.length);
    expect(violations).toEqual([]);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    expect(statuses.get(201)).toBeGreaterThan(0);
    expect(asked.length).toBeGreaterThan(0);

    const db = await getDb();
    const holdRows = new Map((await db.select().from(holds).where(eq(holds.workspaceId, workspace.id))).map((h) => [h.id, h]));
    const events = await db.select().from(calendarEvents).where(eq(calendarEvents.workspaceId, workspace.id));
    const resolved = (await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id))).filter((e) => e.type === "approval.resolved");
    for (const h of holdRows.values()) {
      const made = events.filter((e) => e.holdId === h.id);
      expect(made.length, `${h.id} (${h.status}) events`).toBe(h.status === "committed" ? h.calendarIds.length : 0);
    }
    for (const a of asked) {
      const [row] = await db.select().from(approvals).where(eq(approvals.id, a.id));
      expect(row!.status, a.id).not.toBe("pending");
      const told = resolved.filter((e) => (e.data as { approval_id: string }).approval_id === a.id);
      expect(told, `${a.id}: approval.resolved once`).toHaveLength(1);
      const outcomes = (told[0]!.data as { holds: { hold_id: string; outcome: string }[] }).holds;
      expect(outcomes.map((o) => o.hold_id).sort(), a.id).toEqual([...a.holdIds].sort());
      for (const o of outcomes) {
        const allowed =
          row!.status === "approved" ? (a.onApprove === "commit" ? ["committed", "preempted"] : ["held", "preempted"]) : ["released", "preempted"];
        expect(allowed, `${a.id} ${row!.status} (${a.onApprove}): ${o.hold_id} ${o.outcome}`).toContain(o.outcome);
        // A hold it released or committed stays so; one it kept may since have expired or been committed by its agent.
        const now = holdRows.get(o.hold_id)!.status;
        if (o.outcome !== "held") expect(now, o.hold_id).toBe(o.outcome);
      }
    }
    const { key: auditor } = await newKey(workspace.id);
    expect((await api("/api/v1/audit/verify", { key: auditor })).json.valid).toBe(true);
  });
});
