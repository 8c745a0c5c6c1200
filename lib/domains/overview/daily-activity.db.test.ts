// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { getDb } from "../../../db/client";
import { approvals, webhookDeliveries } from "../../../db/schema";
import { transaction } from "../../../db/transaction";
import { createApproval } from "../approvals/create-approval";
import { decideApproval } from "../approvals/decide-approval";
import { createCalendar } from "../calendars/calendars";
import { emitEvent } from "../../platform/events/emit-event";
import { placeHold } from "../holds/place-hold";
import { createEndpoint } from "../webhooks/create-endpoint";
import { ACTIVITY_DAYS, dailyActivity } from "./daily-activity";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

describe("the overview's daily activity", () => {
  it("counts holds, preemptions, approvals with time to decision, deliveries, per day for 30 days, in the viewer's zone", async () => {
    // UTC+14, where "today" is often tomorrow in UTC; but never within an hour of its midnight,
    // when the rows made now and the day they are counted on could fall on two dates.
    const hourThere = Number(new Intl.DateTimeFormat("en-GB", { timeZone: "Pacific/Kiritimati", hour: "numeric", hourCycle: "h23" }).format(new Date()));
    const zone = hourThere >= 1 && hourThere < 23 ? "Pacific/Kiritimati" : "Asia/Kolkata";
    const { workspace } = await newWorkspace();
    const { actor: admin } = await newMember(workspace.id, "admin");
    const { member: approver } = await newMember(workspace.id, "approver");
    const agent = await newAgent(workspace.id);
    const { row: key } = await newKey(workspace.id, { agent_id: agent.id });
    const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: agent.id };
    const calendar = await createCalendar(admin, { name: "Room" });
    const slot = { calendar_ids: [calendar.id], start_time: T(9), end_time: T(10), hold_ttl_seconds: 60, metadata: {} };
    await placeHold(keyActor, { ...slot, priority: 10 });
    await placeHold(keyActor, { ...slot, priority: 50 }); // preempts the first
    await createEndpoint(admin, { url: "https://hooks.example.com/x" });
    await transaction((tx) => emitEvent(tx, admin, { type: "calendar.synced", data: {} }));
    const db = await getDb();
    await db.update(webhookDeliveries).set({ status: "succeeded", completedAt: new Date() }).where(eq(webhookDeliveries.workspaceId, workspace.id));

    const asked = await createApproval(keyActor, { summary: "Deploy", evidence: {} });
    await createApproval(keyActor, { summary: "Refund", evidence: {} });
    await db.update(approvals).set({ createdAt: new Date(Date.now() - 90_000) }).where(eq(approvals.id, asked.id));
    await decideApproval({ type: "member", workspaceId: workspace.id, memberId: approver.id }, asked.id, "approve");

    const days = await dailyActivity(workspace.id, zone);
    expect(days).toHaveLength(ACTIVITY_DAYS);
    const today = days.at(-1)!;
    expect(today.day).toBe(new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date()));
    expect(today).toMatchObject({ holdsGranted: 2, holdsPreempted: 1, approvalsAsked: 2, approvalsDecided: 1, deliveriesOk: 1, deliveriesFailed: 0, mailIn: 0, mailOut: 0 });
    expect(today.medianDecisionSeconds).toBeGreaterThanOrEqual(89);
    expect(days.slice(0, -1).every((d) => d.holdsGranted === 0 && d.medianDecisionSeconds === null)).toBe(true);
    expect((await dailyActivity((await newWorkspace()).workspace.id, "UTC")).every((d) => d.holdsGranted === 0)).toBe(true);
  });
});
