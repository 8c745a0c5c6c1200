// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { jsonValue } from "../../../db/row-json";
import { calendarEvents, holds } from "../../../db/schema";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { createCalendar } from "../calendars/calendars";
import { placeHold } from "./place-hold";
import { releaseHold } from "./release-hold";
import { serializeHold } from "./serialize";
import { commitHold } from "./commit-hold";
import { cancelEvent } from "../calendars/events";
import { serializeCalendarEvent } from "../calendars/serialize";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

// The conflict engine's functions write webhook payloads in SQL (agentdraft_hold_json); the API
// serializes holds in TypeScript (serializeHold). One shape: the two must agree for every state.

setTestEnv({ HOLD_TTL_MIN_SECONDS: "1" });

describe("a hold's JSON, from the database and from the API", () => {
  it("is the same for held, preempted, released and expired holds", async () => {
    const { workspace, actor } = await newWorkspace();
    const { row } = await newKey(workspace.id);
    const key = { type: "key" as const, workspaceId: workspace.id, keyId: row.id, agentId: null };
    const calendar = await createCalendar(actor, { name: "Room" });
    const at = (d: number) => T(24 * (d - 1) + 9);
    const low = await placeHold(key, { calendar_ids: [calendar.id], start_time: at(1), end_time: at(2), priority: 10, hold_ttl_seconds: 600, metadata: { note: "ünïcode ✓", n: [1, { deep: true }] } });
    await placeHold(key, { calendar_ids: [calendar.id], start_time: at(1), end_time: at(2), priority: 90, hold_ttl_seconds: 600, metadata: {} });
    const released = await placeHold(key, { calendar_ids: [calendar.id], start_time: at(3), end_time: at(4), priority: 5, hold_ttl_seconds: 600, metadata: {} });
    await releaseHold(key, released.hold.id);
    const expiring = await placeHold(key, { calendar_ids: [calendar.id], start_time: at(5), end_time: at(6), priority: 5, hold_ttl_seconds: 1, metadata: {} });
    await new Promise((r) => setTimeout(r, 1100));

    const db = await getDb();
    for (const id of [low.hold.id, released.hold.id, expiring.hold.id]) {
      const [h] = await db.select().from(holds).where(eq(holds.id, id));
      const { rows } = await db.execute<{ j: unknown }>(sql`select agentdraft_hold_json(h, array['evt_1']) as j from holds h where h.id = ${id}`);
      const fromDb = jsonValue(rows[0]!.j);
      expect(fromDb).toEqual(serializeHold(h!, ["evt_1"]));
    }
  });
});

describe("an event's JSON, from the database and from the API", () => {
  it("is the same for confirmed and cancelled events", async () => {
    const { workspace, actor } = await newWorkspace();
    const { row } = await newKey(workspace.id);
    const key = { type: "key" as const, workspaceId: workspace.id, keyId: row.id, agentId: null };
    const calendar = await createCalendar(actor, { name: "Desk" });
    const { hold } = await placeHold(key, { calendar_ids: [calendar.id], start_time: T(9), end_time: T(10), priority: 1, hold_ttl_seconds: 600, metadata: { k: "v" } });
    const { events } = await commitHold(key, hold.id);
    const db = await getDb();
    const check = async (id: string) => {
      const [e] = await db.select().from(calendarEvents).where(eq(calendarEvents.id, id));
      const { rows } = await db.execute<{ j: unknown }>(sql`select agentdraft_event_json(e) as j from calendar_events e where e.id = ${id}`);
      expect(jsonValue(rows[0]!.j)).toEqual(serializeCalendarEvent(e!));
    };
    await check(events[0]!.id);
    await cancelEvent(key, events[0]!.id);
    await check(events[0]!.id);
  });
});
