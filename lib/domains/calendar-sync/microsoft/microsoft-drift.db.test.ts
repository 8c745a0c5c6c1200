import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { calendarOrphans, eventReconciliations, googleEventExports, webhookEvents } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedOutlookCalendar, withFakeMicrosoft } from "../../../../test/helpers/microsoft";
import { syncLink } from "../sync-link";
import { checkLinkDrift } from "../drift";
import { EVENT_PROPERTY_ID } from "./provider";
import { runMicrosoftExport } from "./calendar-sync";
import { commitAndExport } from "../../../../test/helpers/commit-and-export";

const fakeMicrosoft = withFakeMicrosoft({ extra: { API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" } });
const { api } = serveApiForTests();

// Inside the delta window (a week back to 400 days ahead): days from three days on, UTC.
const DAY0 = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 3);
const at = (h: number, m = 0) => new Date(DAY0 + (h * 60 + m) * 60_000);
const T = (h: number, m = 0) => at(h, m).toISOString();
const utc = (d: Date) => ({ dateTime: d.toISOString().replace("Z", "0000"), timeZone: "UTC" });

type Setup = Awaited<ReturnType<typeof linkedOutlookCalendar>>;

const committedAndExported = (setup: Setup, start: string, end: string) => commitAndExport(api, setup, start, end, runMicrosoftExport);

async function webhooks(workspaceId: string, type: string) {
  const db = await getDb();
  return db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));
}

describe("drift check (Microsoft 365 / Outlook)", () => {
  it("changes hidden by a full resync: a move is recorded, a missing event is cancelled_externally (never re-created), orphans reported once and deleted only when provably ours", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    const moved = await committedAndExported(setup, T(9), T(10));
    const removed = await committedAndExported(setup, T(11), T(12));
    const kept = await committedAndExported(setup, T(13), T(14));
    const cancelled = await committedAndExported(setup, T(15), T(16));
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    // AgentDraft cancels one: its copy is removed in Outlook.
    expect((await api(`/api/v1/events/${cancelled.eventId}`, { key: cancelled.key, method: "DELETE" })).status).toBe(200);
    expect(await runMicrosoftExport(cancelled.exportId)).toMatchObject({ ok: true });

    // While the delta token is invalid: a person moves one out of the window and deletes another;
    // someone puts an event carrying AgentDraft's tag for `kept` in the calendar.
    fake.updateEvent(setup.mcal, moved.remoteId, { start: utc(at(20)), end: utc(at(21)) });
    fake.removeEvent(setup.mcal, removed.remoteId);
    fake.addEvent(setup.mcal, { id: "AAMkForged1=", subject: "copy", start: utc(at(13, 30)), end: utc(at(13, 45)), singleValueExtendedProperties: [{ id: EVENT_PROPERTY_ID, value: kept.eventId }] });
    // And the removed copy of the cancelled event comes back (restored from Deleted Items, same id).
    fake.calendars.get(setup.mcal)!.events.get(cancelled.remoteId)!.removed = false;
    fake.expireDeltaTokens();
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: true });

    const result = await checkLinkDrift(setup.link.id);
    expect(result).toMatchObject({ status: "ok", requeued: 0, missing: 1, orphans: 2 });
    const db = await getDb();
    const recs = await db.select().from(eventReconciliations).where(eq(eventReconciliations.linkId, setup.link.id));
    // (The forged copy is busy time like any other: the full resync found `kept` overlapped.)
    expect(Object.fromEntries(recs.map((r) => [r.calendarEventId, r.state]))).toEqual({ [moved.eventId]: "moved_externally", [removed.eventId]: "cancelled_externally", [kept.eventId]: "conflicted" });
    // Nothing re-created over the person's deletion.
    expect(fake.liveEvents(setup.mcal).some((e) => e.id === removed.remoteId)).toBe(false);
    const [removedRow] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, removed.exportId));
    expect(removedRow!.status).toBe("exported");

    const orphans = await db.select().from(calendarOrphans).where(eq(calendarOrphans.linkId, setup.link.id));
    expect(Object.fromEntries(orphans.map((o) => [o.providerEventId, [o.action, o.reason, o.taggedEventId]]))).toEqual({
      "AAMkForged1=": ["reported", "duplicate_copy", kept.eventId],
      [cancelled.remoteId]: ["deleted", "removed_by_agentdraft", cancelled.eventId],
    });
    expect(await runMicrosoftExport(cancelled.exportId)).toMatchObject({ ok: true });
    expect(fake.liveEvents(setup.mcal).map((e) => e.id).sort()).toEqual([moved.remoteId, kept.remoteId, "AAMkForged1="].sort());

    // Again (a check, a sync): nothing new; each announced once.
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", requeued: 0, missing: 0, reconciled: 0, orphans: 0 });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    expect(await webhooks(setup.workspace.id, "calendar.orphan_found")).toHaveLength(2);
    expect(await webhooks(setup.workspace.id, "event.cancelled_externally")).toHaveLength(1);
    expect(await webhooks(setup.workspace.id, "event.moved_externally")).toHaveLength(1);
  });

  it("orphans outside the window: events carrying AgentDraft's tag are found wherever they lie, by the singleValueExtendedProperties $filter, with no lookup per event", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    await committedAndExported(setup, T(8), T(9));
    const movedOut = await committedAndExported(setup, T(12), T(13));
    const cancelled = await committedAndExported(setup, T(10), T(11));
    expect((await api(`/api/v1/events/${cancelled.eventId}`, { key: cancelled.key, method: "DELETE" })).status).toBe(200);
    expect(await runMicrosoftExport(cancelled.exportId)).toMatchObject({ ok: true });

    // Far outside the window [08:00, 13:00] of day 0: the removed copy restored and put 200 days on;
    // a person moves another copy 100 days on; another AgentDraft's copy 300 days on; a tagged
    // event long over; an untagged one.
    const tag = (value: string) => [{ id: EVENT_PROPERTY_ID, value }];
    fake.calendars.get(setup.mcal)!.events.get(cancelled.remoteId)!.removed = false;
    fake.updateEvent(setup.mcal, cancelled.remoteId, { start: utc(at(24 * 200 + 10)), end: utc(at(24 * 200 + 11)) });
    fake.updateEvent(setup.mcal, movedOut.remoteId, { start: utc(at(24 * 100 + 9)), end: utc(at(24 * 100 + 10)) });
    fake.addEvent(setup.mcal, { id: "AAMkFar1=", subject: "copy", start: utc(at(24 * 300 + 9)), end: utc(at(24 * 300 + 10)), singleValueExtendedProperties: tag("evt_otherdeployment000000000") });
    const monthAgo = new Date(Date.now() - 40 * 86_400_000);
    fake.addEvent(setup.mcal, { id: "AAMkPast1=", subject: "copy", start: utc(monthAgo), end: utc(new Date(monthAgo.getTime() + 3600_000)), singleValueExtendedProperties: tag("evt_longover000000000000000") });
    fake.addEvent(setup.mcal, { id: "AAMkPlain1=", subject: "lunch", start: utc(at(24 * 300 + 12)), end: utc(at(24 * 300 + 13)) });

    const before = fake.requests.length;
    const result = await checkLinkDrift(setup.link.id, { force: true });
    expect(result).toMatchObject({ status: "ok", orphans: 2, reconciled: 1, missing: 0 });
    // The window and the tagged events are listed; no event is asked for by its id.
    const calls = fake.requests.slice(before).filter((r) => r.method === "GET" && r.path.includes("/calendars/"));
    expect(calls.map((r) => r.path.split("/").at(-1))).toEqual(["calendarView", "events"]);
    expect(new URLSearchParams(calls[1]!.query).get("$filter")).toBe(`singleValueExtendedProperties/Any(ep: ep/id eq '${EVENT_PROPERTY_ID}' and ep/value ne null)`);

    const db = await getDb();
    const orphans = await db.select().from(calendarOrphans).where(eq(calendarOrphans.linkId, setup.link.id));
    expect(Object.fromEntries(orphans.map((o) => [o.providerEventId, [o.action, o.reason, o.providerStart?.toISOString()]]))).toEqual({
      [cancelled.remoteId]: ["deleted", "removed_by_agentdraft", T(24 * 200 + 10)],
      "AAMkFar1=": ["reported", "unknown_event", T(24 * 300 + 9)],
    });
    const [rec] = await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, movedOut.eventId));
    expect(rec).toMatchObject({ state: "moved_externally", providerStart: at(24 * 100 + 9) });
    expect(await runMicrosoftExport(cancelled.exportId)).toMatchObject({ ok: true });
    expect(fake.liveEvents(setup.mcal).some((e) => e.id === cancelled.remoteId)).toBe(false);

    // Once: checked again, nothing new.
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", orphans: 0, reconciled: 0 });
    expect(await webhooks(setup.workspace.id, "calendar.orphan_found")).toHaveLength(2);
  });
});
