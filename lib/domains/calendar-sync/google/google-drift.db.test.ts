// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { auditEntries, calendarOrphans, eventReconciliations, googleCalendarLinks, googleEventExports, webhookEvents } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { dueItems } from "../../../platform/jobs/due";
import { checkLinkDrift } from "../drift";
import { driftDueSource } from "../drift-source";
import { runExport } from "./export-event";
import { syncLink } from "./sync-calendar";
import { commitAndExport } from "../../../../test/helpers/commit-and-export";
import { onUtcDay } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);
// Far from that day: a year on, half a year on, nearly two years on, and one long over.
const YEAR_ON = onUtcDay(30 + 366);
const HALF_YEAR_ON = onUtcDay(30 + 180);
const TWO_YEARS_ON = onUtcDay(30 + 600);
const LONG_AGO = onUtcDay(-2500);
type Setup = Awaited<ReturnType<typeof linkedCalendar>>;

const committedAndExported = (setup: Setup, start: string, end: string) => commitAndExport(api, setup, start, end, runExport);

async function linkRow(linkId: string) {
  const db = await getDb();
  return (await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, linkId)))[0]!;
}

async function webhooks(workspaceId: string, type: string) {
  const db = await getDb();
  return db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));
}

/** Due drift checks of a workspace, as the job registry lists them. */
async function dueChecks(workspaceId: string, within = 0) {
  const items = await dueItems({ source: driftDueSource }, { before: new Date(Date.now() + within), limit: 1000 });
  return items.filter((i) => i.workspaceId === workspaceId);
}

describe("drift check (Google)", () => {
  it("is asked for by a full resync and a recovery, runs daily only while committed events lie ahead, and an idle link has none", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    // The first (full) sync asks for a check; with nothing exported it ends with none due.
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: true });
    expect((await linkRow(setup.link.id)).driftCheckAt).toBeInstanceOf(Date);
    expect(await dueChecks(setup.workspace.id)).toHaveLength(1);
    expect(await checkLinkDrift(setup.link.id)).toMatchObject({ status: "nothing_exported", listed: 0 });
    expect((await linkRow(setup.link.id)).driftCheckAt).toBeNull();
    // Incremental syncs ask for nothing; not due, a check does nothing.
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: false });
    expect((await linkRow(setup.link.id)).driftCheckAt).toBeNull();
    expect(await checkLinkDrift(setup.link.id)).toBeNull();
    expect(await dueChecks(setup.workspace.id, 400 * 86_400_000)).toEqual([]);

    // An export arms the daily check (a day out), which keeps itself going while the event is ahead.
    const { eventId, key } = await committedAndExported(setup, T(10), T(11));
    const armed = (await linkRow(setup.link.id)).driftCheckAt!;
    expect(armed.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(await dueChecks(setup.workspace.id)).toEqual([]);
    expect(await dueChecks(setup.workspace.id, 25 * 3600_000)).toHaveLength(1);
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", listed: 1, requeued: 0, orphans: 0, reconciled: 0 });
    expect((await linkRow(setup.link.id)).driftCheckAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);

    // An outage: failed syncs, then a recovery asks for a check at once.
    fake.failNext(1, { status: 500, reason: "backendError", domain: "global" });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "failed" });
    expect(await dueChecks(setup.workspace.id)).toEqual([]);
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok" });
    expect(await dueChecks(setup.workspace.id)).toHaveLength(1);
    expect(await checkLinkDrift(setup.link.id)).toMatchObject({ status: "ok", listed: 1 });

    // A 410: the full resync asks for a check at once.
    fake.expireSyncTokens();
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: true });
    expect(await dueChecks(setup.workspace.id)).toHaveLength(1);

    // Nothing committed ahead any more: the check schedules no next one.
    expect((await api(`/api/v1/events/${eventId}`, { key, method: "DELETE" })).status).toBe(200);
    const db = await getDb();
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, eventId));
    await runExport(row!.id);
    expect(await checkLinkDrift(setup.link.id)).toMatchObject({ status: "ok", orphans: 0 });
    expect((await linkRow(setup.link.id)).driftCheckAt).toBeNull();
    expect(await dueChecks(setup.workspace.id, 400 * 86_400_000)).toEqual([]);
  });

  it("an exported event Google lost is re-created; one a person deleted (listed as cancelled) is cancelled_externally, once, with the sync agreeing", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const lost = await committedAndExported(setup, T(9), T(10));
    const deleted = await committedAndExported(setup, T(11), T(12));
    const moved = await committedAndExported(setup, T(13), T(14));
    const kept = await committedAndExported(setup, T(15), T(16));
    await syncLink(setup.link.id);

    // Google loses one outright (no tombstone); a person deletes one and moves another while the
    // change feed is broken (a 410): the full resync lists neither the deletion nor a change.
    fake.calendars.get(setup.gcal)!.events.delete(lost.remoteId);
    fake.deleteEvent(setup.gcal, deleted.remoteId);
    fake.moveEvent(setup.gcal, moved.remoteId, T(17), T(18));
    fake.expireSyncTokens();
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: true, reconciled: 1 });

    // Two checks at once: one runs (the claim), the other skips.
    const runs = await Promise.all([checkLinkDrift(setup.link.id), checkLinkDrift(setup.link.id)]);
    const ran = runs.filter((r) => r !== null);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatchObject({ status: "ok", requeued: 1, reconciled: 1, orphans: 0, missing: 0 });
    const db = await getDb();
    const recs = await db.select().from(eventReconciliations).where(eq(eventReconciliations.linkId, setup.link.id));
    expect(Object.fromEntries(recs.map((r) => [r.calendarEventId, r.state]))).toEqual({ [deleted.eventId]: "cancelled_externally", [moved.eventId]: "moved_externally" });
    expect(await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, kept.eventId))).toEqual([]);

    // The lost export is pending again: the export job re-creates it under the same id.
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.id, lost.exportId));
    expect(row).toMatchObject({ status: "pending", desired: "present" });
    expect(await runExport(lost.exportId)).toMatchObject({ ok: true });
    const live = fake.liveEvents(setup.gcal);
    expect(live.find((e) => e.id === lost.remoteId)).toMatchObject({ start: { dateTime: T(9) }, extendedProperties: { private: { agentdraft_event_id: lost.eventId } } });
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, lost.eventId), eq(auditEntries.action, "calendar.export_lost")));
    expect(audit).toHaveLength(1);

    // Seen again (a check, a sync): nothing new, each change announced once.
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ requeued: 0, reconciled: 0, orphans: 0 });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    expect(await webhooks(setup.workspace.id, "event.cancelled_externally")).toHaveLength(1);
    expect(await webhooks(setup.workspace.id, "event.moved_externally")).toHaveLength(1);
  });

  it("orphans: a tagged event AgentDraft never exported is reported once and left; its own removed copy come back is deleted", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const anchor = await committedAndExported(setup, T(8), T(9));
    const removed = await committedAndExported(setup, T(10), T(11));
    // AgentDraft cancels one: its copy is removed at Google.
    expect((await api(`/api/v1/events/${removed.eventId}`, { key: removed.key, method: "DELETE" })).status).toBe(200);
    expect(await runExport(removed.exportId)).toMatchObject({ ok: true });
    expect(fake.liveEvents(setup.gcal).map((e) => e.id)).toEqual([anchor.remoteId]);

    // Someone restores the removed copy from the bin, and someone copies the tag onto an event of theirs.
    fake.updateEvent(setup.gcal, removed.remoteId, { status: "confirmed", start: { dateTime: T(10) }, end: { dateTime: T(11) } });
    fake.addEvent(setup.gcal, { id: "forgedtag1", start: T(8, 30), end: T(9, 30), privateProperties: { agentdraft_event_id: anchor.eventId } });
    fake.addEvent(setup.gcal, { id: "unknowntag1", start: T(10, 15), end: T(10, 45), privateProperties: { agentdraft_event_id: "evt_doesnotexist000000000000" } });

    const result = await checkLinkDrift(setup.link.id, { force: true });
    expect(result).toMatchObject({ status: "ok", orphans: 3, requeued: 0 });
    const db = await getDb();
    const orphans = await db.select().from(calendarOrphans).where(eq(calendarOrphans.linkId, setup.link.id));
    expect(Object.fromEntries(orphans.map((o) => [o.providerEventId, [o.action, o.reason]]))).toEqual({
      [removed.remoteId]: ["deleted", "removed_by_agentdraft"],
      forgedtag1: ["reported", "duplicate_copy"],
      unknowntag1: ["reported", "unknown_event"],
    });
    const sent = await webhooks(setup.workspace.id, "calendar.orphan_found");
    expect(sent).toHaveLength(3);
    expect(sent.find((w) => (w.data as { provider_event_id: string }).provider_event_id === "unknowntag1")!.data).toMatchObject({
      calendar_id: setup.calendar.id,
      link_id: setup.link.id,
      provider: "google",
      tagged_event_id: "evt_doesnotexist000000000000",
      start_time: T(10, 15),
      end_time: T(10, 45),
      action: "reported",
    });
    // The removal runs again; the others are left alone.
    expect(await runExport(removed.exportId)).toMatchObject({ ok: true });
    expect(fake.liveEvents(setup.gcal).map((e) => e.id).sort()).toEqual([anchor.remoteId, "forgedtag1", "unknowntag1"].sort());

    // Checked again: reported once, nothing deleted twice.
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ orphans: 0 });
    expect(await webhooks(setup.workspace.id, "calendar.orphan_found")).toHaveLength(3);
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, setup.workspace.id), eq(auditEntries.action, "calendar.orphan_found")));
    expect(audit).toHaveLength(3);
  });
});

describe("drift check (Google): orphans outside the window", () => {
  it("finds copies carrying AgentDraft's mark wherever they lie, by events.list's privateExtendedProperty filter, with no lookup per event", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const anchor = await committedAndExported(setup, T(8), T(9));
    const movedOut = await committedAndExported(setup, T(12), T(13));
    const removed = await committedAndExported(setup, T(10), T(11));
    // Every copy carries the mark beside its tags.
    expect(fake.liveEvents(setup.gcal).find((e) => e.id === anchor.remoteId)!.extendedProperties!.private).toEqual({
      agentdraft_event_id: anchor.eventId,
      agentdraft_hold_id: expect.stringMatching(/^hold_/),
      agentdraft_export: "1",
    });
    expect((await api(`/api/v1/events/${removed.eventId}`, { key: removed.key, method: "DELETE" })).status).toBe(200);
    expect(await runExport(removed.exportId)).toMatchObject({ ok: true });

    // Far outside the window [08:00, 13:00]: the removed copy restored from the bin and put a year
    // later; a person moves another copy to next year; another AgentDraft's copy two years on; a
    // tagged event without the mark (a copy written before the mark) and a marked one long over.
    const mark = { agentdraft_export: "1" };
    fake.updateEvent(setup.gcal, removed.remoteId, { status: "confirmed", start: { dateTime: YEAR_ON(10) }, end: { dateTime: YEAR_ON(11) } });
    fake.moveEvent(setup.gcal, movedOut.remoteId, HALF_YEAR_ON(9), HALF_YEAR_ON(10));
    fake.addEvent(setup.gcal, { id: "farorphan1", start: TWO_YEARS_ON(9), end: TWO_YEARS_ON(10), privateProperties: { agentdraft_event_id: "evt_otherdeployment000000000", ...mark } });
    fake.addEvent(setup.gcal, { id: "unmarked1", start: TWO_YEARS_ON(9 + 24 * 31), end: TWO_YEARS_ON(10 + 24 * 31), privateProperties: { agentdraft_event_id: "evt_unmarked00000000000000" } });
    fake.addEvent(setup.gcal, { id: "pastorphan1", start: LONG_AGO(9), end: LONG_AGO(10), privateProperties: { agentdraft_event_id: "evt_longover000000000000000", ...mark } });

    const before = fake.requests.length;
    const result = await checkLinkDrift(setup.link.id, { force: true });
    expect(result).toMatchObject({ status: "ok", orphans: 2, reconciled: 1, requeued: 0 });
    // Two listings (the window, the mark), and no events.get for the copy moved out of the window.
    const calls = fake.requests.slice(before).filter((r) => r.method === "GET");
    expect(calls).toHaveLength(2);
    expect(calls.every((r) => r.path.endsWith("/events"))).toBe(true);
    expect(calls.map((r) => new URLSearchParams(r.query).get("privateExtendedProperty"))).toEqual([null, "agentdraft_export=1"]);

    const db = await getDb();
    const orphans = await db.select().from(calendarOrphans).where(eq(calendarOrphans.linkId, setup.link.id));
    expect(Object.fromEntries(orphans.map((o) => [o.providerEventId, [o.action, o.reason, o.providerStart?.toISOString()]]))).toEqual({
      [removed.remoteId]: ["deleted", "removed_by_agentdraft", YEAR_ON(10)],
      farorphan1: ["reported", "unknown_event", TWO_YEARS_ON(9)],
    });
    const [rec] = await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, movedOut.eventId));
    expect(rec).toMatchObject({ state: "moved_externally", providerStart: new Date(HALF_YEAR_ON(9)) });
    expect(await runExport(removed.exportId)).toMatchObject({ ok: true });
    expect(fake.liveEvents(setup.gcal).some((e) => e.id === removed.remoteId)).toBe(false);

    // Once: checked again, nothing new.
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", orphans: 0, reconciled: 0 });
    expect(await webhooks(setup.workspace.id, "calendar.orphan_found")).toHaveLength(2);
  });
});
