import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { calendarEvents, eventReconciliations, googleEventExports } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { newKey } from "../../../../test/helpers/fixtures";
import { linkedOutlookCalendar, withFakeMicrosoft } from "../../../../test/helpers/microsoft";
import { mcpClients } from "../../../../test/helpers/mcp-client";
import { syncLink } from "../sync-link";
import { runMicrosoftExport } from "./calendar-sync";

const fakeMicrosoft = withFakeMicrosoft({ extra: { API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" } });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);

// Inside the delta window (a week back to 400 days ahead): days from three days on, UTC.
const DAY0 = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 3);
const at = (h: number, m = 0) => new Date(DAY0 + (h * 60 + m) * 60_000);
const T = (h: number, m = 0) => at(h, m).toISOString();
const utc = (d: Date) => ({ dateTime: d.toISOString().replace("Z", "0000"), timeZone: "UTC" });

describe("re-booking an event a person moved (Microsoft 365 / Outlook)", () => {
  it("through the MCP tools: the re-booking's commit updates the same Graph event (one event, moved), the old event ends; a second re-booking while one is live is refused; two commits at once book it once", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    const { key } = await newKey(setup.workspace.id);
    const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(9), end_time: T(10), hold_ttl_seconds: 60 } });
    const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
    const oldId = committed.json.event_ids[0] as string;
    const db = await getDb();
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, oldId));
    expect(await runMicrosoftExport(row!.id)).toMatchObject({ ok: true });
    const [exported] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, row!.id));
    const graphId = exported!.googleEventId;
    expect(graphId.startsWith("agentdraft")).toBe(false);

    // A person moves it to 20:00 in Outlook.
    fake.updateEvent(setup.mcal, graphId, { start: utc(at(20)), end: utc(at(21)) });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 1 });

    // The agent re-books it at 9:30, overlapping its own old time (which is no conflict), through MCP.
    const client = await connect(key);
    const placed = (await call(client, "place_hold", { calendar_ids: [setup.calendar.id], start_time: T(9, 30), end_time: T(10, 30), priority: 50, hold_ttl_seconds: 60, rebooks_event_id: oldId }))
      .structuredContent as { id: string; rebooks_event_id: string };
    expect(placed.rebooks_event_id).toBe(oldId);
    // A second re-booking while that one is live: refused.
    const second = await api(`/api/v1/holds`, { key, body: { calendar_ids: [setup.calendar.id], start_time: T(12), end_time: T(13), hold_ttl_seconds: 60, rebooks_event_id: oldId } });
    expect(second.status).toBe(409);
    // Two calendars: a re-booking is on the event's calendar alone.
    const wide = await api(`/api/v1/holds`, { key, body: { calendar_ids: [setup.calendar.id, setup.calendar.id], start_time: T(12), end_time: T(13), hold_ttl_seconds: 60, rebooks_event_id: oldId } });
    expect([400, 409]).toContain(wide.status);

    // Committing it twice at once: once.
    const commits = await Promise.all([1, 2].map(() => call(client, "commit_hold", { hold_id: placed.id })));
    const ids = commits.map((c) => (c.structuredContent as { event_ids: string[] }).event_ids);
    expect(ids[0]).toEqual(ids[1]);
    const newId = ids[0]![0]!;
    expect((await db.select().from(calendarEvents).where(eq(calendarEvents.id, oldId)))[0]!.status).toBe("cancelled");

    const [moved] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, newId));
    expect(moved).toMatchObject({ id: row!.id, googleEventId: graphId, status: "pending" });
    expect(await runMicrosoftExport(moved!.id)).toMatchObject({ ok: true });
    const live = fake.liveEvents(setup.mcal);
    expect(live).toHaveLength(1);
    expect(live[0]!.id).toBe(graphId);
    expect(new Date(`${live[0]!.start!.dateTime.replace(/0*$/, "").replace(/\.$/, "")}Z`).toISOString()).toBe(T(9, 30));
    expect(live[0]!.singleValueExtendedProperties?.map((p) => p.value)).toContain(newId);

    const [rec] = await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, oldId));
    expect(rec).toMatchObject({ state: "in_sync", changed: ["rebooked"] });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    const attention = (await call(client, "list_calendar_events", { calendar_id: setup.calendar.id, attention: "true" })).structuredContent as { data: unknown[] };
    expect(attention.data).toEqual([]);
  });

  it("an event a person deleted in Outlook (Graph cannot bring it back): the re-booking's commit gets one new Graph event, never two", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    const { key } = await newKey(setup.workspace.id);
    const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(9), end_time: T(10), hold_ttl_seconds: 60 } });
    const oldId = (await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" })).json.event_ids[0] as string;
    const db = await getDb();
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, oldId));
    expect(await runMicrosoftExport(row!.id)).toMatchObject({ ok: true });
    const [exported] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, row!.id));
    fake.removeEvent(setup.mcal, exported!.googleEventId);
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 1 });

    const placed = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(11), end_time: T(12), hold_ttl_seconds: 60, rebooks_event_id: oldId } });
    expect(placed.status).toBe(201);
    const newId = (await api(`/api/v1/holds/${placed.json.id}/commit`, { key, method: "POST" })).json.event_ids[0] as string;
    expect(await runMicrosoftExport(row!.id)).toMatchObject({ ok: true });
    const live = fake.liveEvents(setup.mcal);
    expect(live).toHaveLength(1);
    expect(live[0]!.singleValueExtendedProperties?.map((p) => p.value)).toContain(newId);
    const [after] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, row!.id));
    expect(after).toMatchObject({ status: "exported", calendarEventId: newId, googleEventId: live[0]!.id });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
  });
});
