// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { getDb } from "../../../db/client";
import { auditEntries, webhookEvents } from "../../../db/schema";
import { sealAuditChain } from "../../platform/audit/seal-chain";
import { placeHold } from "../holds/place-hold";
import { changeHold } from "../holds/change-hold";
import { createCalendar } from "./calendars";
import { cancelEvent } from "./events";
import { updateCalendar } from "./update-calendar";
import { onUtcDay } from "../../../test/helpers/clock";

const at = onUtcDay(30);

async function setup() {
  const { workspace } = await newWorkspace();
  const { member, actor } = await newMember(workspace.id, "admin");
  const agent = await newAgent(workspace.id);
  const { row: key } = await newKey(workspace.id, { agent_id: agent.id });
  const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: agent.id };
  const calendar = await createCalendar(actor, { name: "Room", timezone: "Europe/Berlin" });
  return { workspace, member, actor, agent, keyActor, calendar };
}

async function entries(workspaceId: string, action: string) {
  await sealAuditChain();
  const db = await getDb();
  return db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspaceId), eq(auditEntries.action, action)));
}

describe("an admin on the calendar page", () => {
  it("releases an agent's hold and cancels its event: audited as the member, the webhooks name the agent", async () => {
    const { workspace, member, actor, agent, keyActor, calendar } = await setup();
    const placed = await placeHold(keyActor, { calendar_ids: [calendar.id], start_time: at(9), end_time: at(10), hold_ttl_seconds: 60, priority: 10, metadata: {} });
    const { hold } = await changeHold(actor, placed.hold.id, "release");
    expect(hold.status).toBe("released");

    const second = await placeHold(keyActor, { calendar_ids: [calendar.id], start_time: at(11), end_time: at(12), hold_ttl_seconds: 60, priority: 10, metadata: {} });
    const { events } = await changeHold(keyActor, second.hold.id, "commit");
    const cancelled = await cancelEvent(actor, events[0]!.id);
    expect(cancelled.status).toBe("cancelled");

    const [released] = await entries(workspace.id, "hold.released");
    expect(released).toMatchObject({ actorType: "member", actorId: member.id, resourceId: placed.hold.id });
    const [cancel] = await entries(workspace.id, "event.cancelled");
    expect(cancel).toMatchObject({ actorType: "member", actorId: member.id });
    const db = await getDb();
    // In the outbox's order: an unordered read may return an updated row last.
    const outbox = await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id)).orderBy(webhookEvents.seq);
    expect(outbox.filter((e) => ["hold.released", "event.cancelled"].includes(e.type)).map((e) => [e.type, e.agentId])).toEqual([
      ["hold.released", agent.id],
      ["event.cancelled", agent.id],
    ]);
  });

  it("renames a calendar and sets its time zone, audited; refuses an unknown zone", async () => {
    const { workspace, member, actor, calendar } = await setup();
    const row = await updateCalendar(actor, calendar.id, { name: "Board room", timezone: "America/New_York" });
    expect(row).toMatchObject({ name: "Board room", timezone: "America/New_York" });
    const [entry] = await entries(workspace.id, "calendar.updated");
    expect(entry).toMatchObject({ actorType: "member", actorId: member.id, summary: { name: "Board room", timezone: "America/New_York" } });
    await expect(updateCalendar(actor, calendar.id, { timezone: "Mars/Olympus" })).rejects.toThrow();
    const { actor: stranger } = await newMember((await newWorkspace()).workspace.id, "admin");
    await expect(updateCalendar(stranger, calendar.id, { name: "Mine" })).rejects.toMatchObject({ code: "not_found" });
  });
});
