// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { auditEntries, calendarEvents } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { expireHolds } from "../holds/expire-holds";
import { decideApproval } from "./decide-approval";
import { extendBoundHolds } from "./extend-bound-holds";
import { onUtcDay } from "../../../test/helpers/clock";

// The hold TTL cap is 2 s here: an approval asked to live for a day must not keep a hold that long.
setTestEnv({ HOLD_TTL_MIN_SECONDS: "1", HOLD_TTL_MAX_SECONDS: "2", HOLD_TTL_DEFAULT_SECONDS: "2" });
const { api } = serveApiForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const T = onUtcDay(30);

async function setup() {
  const { workspace } = await newWorkspace();
  const calendar = await createCalendar(operatorActor(workspace.id), { name: "staging" });
  const agent = await newAgent(workspace.id, "deployer");
  const rival = await newAgent(workspace.id, "rival");
  const { key } = await newKey(workspace.id, { agent_id: agent.id });
  const { key: rivalKey } = await newKey(workspace.id, { agent_id: rival.id });
  const hold = await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(9), end_time: T(10), priority: 50, hold_ttl_seconds: 2 } });
  expect(hold.status).toBe(201);
  const approval = await api("/api/v1/approvals", { key, body: { summary: "Deploy", evidence: {}, hold_ids: [hold.json.id], expires_in_seconds: 30 * 86400 } });
  expect(approval.status).toBe(201);
  const rivalPlaces = () => api(`/api/v1/calendars/${calendar.id}/holds`, { key: rivalKey, body: { start_time: T(9), end_time: T(10), priority: 50, hold_ttl_seconds: 2 } });
  return { workspace, key, hold: hold.json, approval: approval.json, rivalPlaces };
}

describe("a hold bound to an approval keeps the hold TTL cap", () => {
  it("binding to a 30-day approval nobody decides blocks the slot only up to the cap: then it expires and others may take the time", async () => {
    const ctx = await setup();
    const bound = Date.parse(ctx.approval.holds[0].expires_at);
    expect(bound - Date.now()).toBeLessThanOrEqual(2_000);
    expect((await ctx.rivalPlaces()).status).toBe(409);
    await sleep(2_300);
    await expireHolds();
    expect((await api(`/api/v1/holds/${ctx.hold.id}`, { key: ctx.key })).json.status).toBe("expired");
    expect((await ctx.rivalPlaces()).status).toBe(201);
    // Approving later commits nothing: the time was not kept.
    const approver = await newMember(ctx.workspace.id, "approver");
    await decideApproval(approver.actor, ctx.approval.id, "approve", "late");
    const db = await getDb();
    expect(await db.select().from(calendarEvents).where(eq(calendarEvents.holdId, ctx.hold.id))).toEqual([]);
  });

  it("a person (approver or above) extends it up to the approval's expiry, audited; a viewer cannot", async () => {
    const ctx = await setup();
    const viewer = await newMember(ctx.workspace.id, "viewer");
    const approver = await newMember(ctx.workspace.id, "approver");
    await expect(extendBoundHolds(viewer.member, ctx.approval.id)).rejects.toMatchObject({ code: "forbidden" });
    const other = await newWorkspace();
    const stranger = await newMember(other.workspace.id, "owner");
    await expect(extendBoundHolds(stranger.member, ctx.approval.id)).rejects.toMatchObject({ code: "not_found" });

    const extended = await extendBoundHolds(approver.member, ctx.approval.id);
    expect(extended.map((h) => h.id)).toEqual([ctx.hold.id]);
    expect(extended[0]!.expiresAt.toISOString()).toBe(ctx.approval.expires_at);
    await sleep(2_300);
    await expireHolds();
    const seen = await api(`/api/v1/holds/${ctx.hold.id}`, { key: ctx.key });
    expect(seen.json).toMatchObject({ status: "held", expires_at: ctx.approval.expires_at });
    expect((await ctx.rivalPlaces()).status).toBe(409);
    const db = await getDb();
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, ctx.workspace.id), eq(auditEntries.action, "hold.extended")));
    expect(audit).toEqual([expect.objectContaining({ actorType: "member", actorId: approver.member.id, resourceId: ctx.hold.id })]);

    // Decided: nothing left to extend.
    await decideApproval(approver.actor, ctx.approval.id, "approve", "go");
    expect((await api(`/api/v1/holds/${ctx.hold.id}`, { key: ctx.key })).json.status).toBe("committed");
    await expect(extendBoundHolds(approver.member, ctx.approval.id)).rejects.toMatchObject({ code: "conflict" });
  });
});
