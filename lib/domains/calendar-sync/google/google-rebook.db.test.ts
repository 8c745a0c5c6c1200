// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { calendarEvents, eventReconciliations, googleEventExports } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { newKey } from "../../../../test/helpers/fixtures";
import { runExport } from "./export-event";
import { syncLink } from "./sync-calendar";
import { onUtcDay } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);

describe("re-booking an event a person moved (Google)", () => {
  it("one call binds a new hold to the old event; committing it updates the same Google event, ends the old one and resolves its reconciliation; a racing re-booking gets 409", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const { key } = await newKey(setup.workspace.id);
    const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(10), end_time: T(11), hold_ttl_seconds: 60 } });
    const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
    const oldId = committed.json.event_ids[0] as string;
    const db = await getDb();
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, oldId));
    expect(await runExport(row!.id)).toMatchObject({ ok: true });
    const remoteId = row!.googleEventId;
    expect(fake.liveEvents(setup.gcal).map((e) => e.id)).toEqual([remoteId]);

    // A person moves it to 14:00; the sync records it.
    fake.updateEvent(setup.gcal, remoteId, { start: { dateTime: T(14) }, end: { dateTime: T(15) } });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 1 });

    // Two agents (workspace keys) re-book it at once, at a time overlapping its own old time: one wins.
    const { key: other } = await newKey(setup.workspace.id);
    const { key: third } = await newKey(setup.workspace.id);
    const body = { start_time: T(10, 30), end_time: T(11, 30), hold_ttl_seconds: 60, rebooks_event_id: oldId };
    // Three callers at once, at different proposed times (so it is the re-booking that refuses, not the time).
    const proposals = [body, { ...body, start_time: T(12), end_time: T(13) }, { ...body, start_time: T(16), end_time: T(17) }];
    const racing = await Promise.all([key, other, third].map((k, i) => api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key: k, body: proposals[i] })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const won = racing.find((r) => r.status === 201)!.json;
    expect(won.rebooks_event_id).toBe(oldId);
    for (const lost of racing.filter((r) => r.status === 409)) expect(lost.json).toMatchObject({ code: "conflict", hold_id: won.id });

    const done = await api(`/api/v1/holds/${won.id}/commit`, { key, method: "POST" });
    expect(done.status).toBe(200);
    const newId = done.json.event_ids[0] as string;
    const [oldEvent] = await db.select().from(calendarEvents).where(eq(calendarEvents.id, oldId));
    expect(oldEvent!.status).toBe("cancelled");
    // One export, moved to the new event, with the same Google event id.
    expect(await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, oldId))).toEqual([]);
    const [moved] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, newId));
    expect(moved).toMatchObject({ id: row!.id, googleEventId: remoteId, desired: "present", status: "pending", holdId: won.id });
    expect(await runExport(moved!.id)).toMatchObject({ ok: true });
    const live = fake.liveEvents(setup.gcal);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ id: remoteId, start: { dateTime: won.start_time }, end: { dateTime: won.end_time } });
    expect(live[0]!.extendedProperties?.private?.agentdraft_event_id).toBe(newId);
    const [after] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, row!.id));
    expect(after).toMatchObject({ status: "exported", googleEventId: remoteId, calendarEventId: newId });

    // Resolved: nothing needs attention, and the next sync agrees.
    const [rec] = await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, oldId));
    expect(rec).toMatchObject({ state: "in_sync", changed: ["rebooked"] });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    const attention = await api(`/api/v1/calendars/${setup.calendar.id}/events?attention=true`, { key });
    expect(attention.json.data).toEqual([]);

    // The old event is no longer committed: re-booking it again is refused.
    const again = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key: other, body: { ...body, start_time: T(18), end_time: T(19) } });
    expect(again.status).toBe(409);
    // An event that does not exist: not found.
    const elsewhere = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { ...body, rebooks_event_id: "evt_00000000000000000000000000" } });
    expect(elsewhere.status).toBe(404);
  });

  it("an event a person deleted: the re-booking restores the same Google event at the new time", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const { key } = await newKey(setup.workspace.id);
    const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(10), end_time: T(11), hold_ttl_seconds: 60 } });
    const oldId = (await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" })).json.event_ids[0] as string;
    const db = await getDb();
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, oldId));
    expect(await runExport(row!.id)).toMatchObject({ ok: true });
    fake.deleteEvent(setup.gcal, row!.googleEventId);
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 1 });
    expect((await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, oldId)))[0]).toMatchObject({ state: "cancelled_externally" });
    expect(fake.liveEvents(setup.gcal)).toEqual([]);

    const placed = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(13), end_time: T(14), hold_ttl_seconds: 60, rebooks_event_id: oldId } });
    expect(placed.status).toBe(201);
    const newId = (await api(`/api/v1/holds/${placed.json.id}/commit`, { key, method: "POST" })).json.event_ids[0] as string;
    expect(await runExport(row!.id)).toMatchObject({ ok: true });
    const live = fake.liveEvents(setup.gcal);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ id: row!.googleEventId, start: { dateTime: T(13) }, end: { dateTime: T(14) } });
    expect(live[0]!.extendedProperties?.private?.agentdraft_event_id).toBe(newId);
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    const attention = await api(`/api/v1/calendars/${setup.calendar.id}/events?attention=true`, { key });
    expect(attention.json.data).toEqual([]);
  });
});
