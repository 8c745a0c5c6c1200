// @suite moved-clock
import { describe, expect, it } from "vitest";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { getDb } from "../../../db/client";
import { eventReconciliations } from "../../../db/schema";
import { placeHold } from "../holds/place-hold";
import { commitHold } from "../holds/commit-hold";
import { createCalendar } from "./calendars";
import { countEventsNeedingAttention, eventsNeedingAttention } from "./attention";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

describe("events needing attention, as the calendar page and the overview read them", () => {
  it("lists a calendar's moved, cancelled and conflicted events soonest first and counts them per calendar, leaving out in-sync ones and other workspaces", async () => {
    const { workspace } = await newWorkspace();
    const { actor: admin } = await newMember(workspace.id, "admin");
    const agent = await newAgent(workspace.id);
    const { row: key } = await newKey(workspace.id, { agent_id: agent.id });
    const actor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: agent.id };
    const room = await createCalendar(admin, { name: "Room" });
    const desk = await createCalendar(admin, { name: "Desk" });
    const book = async (calendarId: string, hour: number) => {
      const { hold } = await placeHold(actor, { calendar_ids: [calendarId], start_time: T(hour), end_time: T(hour + 1), hold_ttl_seconds: 60, priority: 10, metadata: {} });
      return (await commitHold(actor, hold.id)).events[0]!;
    };
    const [late, early, fine, other] = [await book(room.id, 15), await book(room.id, 10), await book(room.id, 12), await book(desk.id, 11)];
    const now = new Date();
    const row = (eventId: string, calendarId: string, state: "moved_externally" | "cancelled_externally" | "conflicted" | "in_sync") => ({
      calendarEventId: eventId,
      workspaceId: workspace.id,
      calendarId,
      linkId: "gcl_x",
      provider: "google" as const,
      providerEventId: `remote-${eventId}`,
      state,
      providerStatus: state === "cancelled_externally" ? ("cancelled" as const) : ("confirmed" as const),
      providerStart: new Date(T(16)),
      providerEnd: new Date(T(17)),
      changed: ["start", "end"],
      conflicts: [],
      detectedAt: now,
      updatedAt: now,
    });
    const db = await getDb();
    await db.insert(eventReconciliations).values([row(late.id, room.id, "moved_externally"), row(early.id, room.id, "cancelled_externally"), row(fine.id, room.id, "in_sync"), row(other.id, desk.id, "conflicted")]);

    const listed = await eventsNeedingAttention(workspace.id, room.id);
    expect(listed.map((r) => [r.event.id, r.reconciliation.state])).toEqual([
      [early.id, "cancelled_externally"],
      [late.id, "moved_externally"],
    ]);
    expect(listed[1]!.reconciliation.providerStart).toEqual(new Date(T(16)));
    expect(await countEventsNeedingAttention(workspace.id)).toEqual({
      total: 3,
      calendars: [
        { id: desk.id, name: "Desk", count: 1 },
        { id: room.id, name: "Room", count: 2 },
      ],
    });

    // Another workspace sees none of them.
    const { workspace: stranger } = await newWorkspace();
    expect(await countEventsNeedingAttention(stranger.id)).toEqual({ total: 0, calendars: [] });
    expect(await eventsNeedingAttention(stranger.id, room.id)).toEqual([]);
  });
});
