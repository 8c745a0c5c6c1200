// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { auditEntries, externalBusyIntervals, googleEventExports, webhookEvents } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { newKey } from "../../../../test/helpers/fixtures";
import { MAX_EXPORT_ATTEMPTS, googleEventIdFor, retryExport, runDueExports } from "./export-event";
import { syncLink } from "./sync-calendar";
import { unlinkCalendar } from "./links";
import { onUtcDay } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);

async function makeDue(exportId: string) {
  const db = await getDb();
  await db.update(googleEventExports).set({ nextAttemptAt: new Date(0) }).where(eq(googleEventExports.id, exportId));
}

async function exportOf(eventId: string) {
  const db = await getDb();
  const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, eventId));
  return row!;
}

async function commitOne(setup: Awaited<ReturnType<typeof linkedCalendar>>, start: string, end: string, metadata: Record<string, unknown> = {}) {
  const { key } = await newKey(setup.workspace.id);
  const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: start, end_time: end, hold_ttl_seconds: 60, metadata } });
  expect(hold.status).toBe(201);
  const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
  expect(committed.status).toBe(200);
  return { key, holdId: hold.json.id as string, eventId: committed.json.event_ids[0] as string };
}

describe("exporting committed events to Google", () => {
  it("commit creates the Google event once, tagged with the hold id; cancel removes it", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { key, holdId, eventId } = await commitOne(setup, T(10), T(11), { title: "Deploy window" });
    expect(await exportOf(eventId)).toMatchObject({ status: "pending", desired: "present", holdId });

    // Several runners at once: the lease admits one.
    await Promise.all([runDueExports(), runDueExports(), runDueExports()]);
    expect(await exportOf(eventId)).toMatchObject({ status: "exported", attempts: 1 });
    const live = fake.liveEvents(setup.gcal);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({
      id: googleEventIdFor(eventId),
      summary: "Deploy window",
      start: { dateTime: T(10) },
      end: { dateTime: T(11) },
      extendedProperties: { private: { agentdraft_hold_id: holdId, agentdraft_event_id: eventId } },
    });

    // Our own export comes back in the next import, and is not counted as outside busy time.
    await syncLink(setup.link.id);
    const db = await getDb();
    expect(await db.select().from(externalBusyIntervals).where(eq(externalBusyIntervals.calendarId, setup.calendar.id))).toEqual([]);

    expect((await api(`/api/v1/events/${eventId}`, { key, method: "DELETE" })).status).toBe(200);
    expect(await exportOf(eventId)).toMatchObject({ status: "pending", desired: "absent" });
    await runDueExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "deleted" });
    expect(fake.liveEvents(setup.gcal)).toEqual([]);
    const actions = (await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, setup.workspace.id), eq(auditEntries.resourceId, eventId))).orderBy(auditEntries.id)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["google.event_exported", "event.cancelled", "google.event_removed"]));
  });

  it("never duplicates when Google stored the event but the answer was lost", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { eventId, holdId } = await commitOne(setup, T(12), T(13));
    fake.loseNextInsertResponse();
    await runDueExports();
    const failed = await exportOf(eventId);
    expect(failed).toMatchObject({ status: "pending", attempts: 1 });
    expect(failed.lastError).toBeTruthy();
    expect(fake.liveEvents(setup.gcal)).toHaveLength(1); // it did reach Google

    // Surfaced once as a webhook and an audit entry, with the retry still to come.
    const db = await getDb();
    const [failure] = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, setup.workspace.id), eq(webhookEvents.type, "calendar.sync_failed")));
    expect(failure!.data).toMatchObject({ direction: "export", event_id: eventId, hold_id: holdId, will_retry: true, attempts: 1 });

    // The retry finds our tag and stops there; retrying again changes nothing.
    await makeDue(failed.id);
    await runDueExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "exported", attempts: 2, lastError: null });
    await makeDue(failed.id);
    await runDueExports();
    expect(fake.liveEvents(setup.gcal)).toHaveLength(1);
    const inserts = fake.requests.filter((r) => r.method === "POST" && r.path === `/calendar/v3/calendars/${encodeURIComponent(setup.gcal)}/events`);
    expect(inserts).toHaveLength(1);
    const [audit] = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, eventId), eq(auditEntries.action, "google.event_exported")));
    expect(audit!.summary).toMatchObject({ result: "already_exported" });
  });

  it("a second insert of the same event is refused by Google (deterministic id), and counts as exported", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { eventId } = await commitOne(setup, T(14), T(15));
    // Google already holds an event with our deterministic id that the tag lookup does not find:
    // the insert is refused with 409 duplicate, and that counts as exported (no second copy).
    fake.addEvent(setup.gcal, { id: googleEventIdFor(eventId), start: T(14), end: T(15) });
    await runDueExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "exported" });
    expect(fake.liveEvents(setup.gcal)).toHaveLength(1);
    expect(fake.requests.some((r) => r.status === 409)).toBe(true);
  });

  it("retries with backoff, gives up after the last attempt with a webhook, and can be retried by hand", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { eventId, holdId } = await commitOne(setup, T(16), T(17));
    const row = await exportOf(eventId);
    for (let i = 1; i <= MAX_EXPORT_ATTEMPTS; i++) {
      fake.failNext(1, { status: 500, reason: "backendError", domain: "global" });
      await makeDue(row.id);
      await runDueExports();
      const now = await exportOf(eventId);
      expect(now.attempts).toBe(i);
      if (i < MAX_EXPORT_ATTEMPTS) expect(now.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
    }
    expect(await exportOf(eventId)).toMatchObject({ status: "failed", attempts: MAX_EXPORT_ATTEMPTS, nextAttemptAt: null });
    const db = await getDb();
    const failures = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, setup.workspace.id), eq(webhookEvents.type, "calendar.sync_failed"))).orderBy(webhookEvents.id);
    expect(failures.map((f) => (f.data as { will_retry: boolean }).will_retry)).toEqual([true, false]);
    expect(fake.liveEvents(setup.gcal)).toEqual([]);

    await retryExport(setup.actor, row.id);
    await runDueExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "exported" });
    expect(fake.liveEvents(setup.gcal)).toMatchObject([{ extendedProperties: { private: { agentdraft_hold_id: holdId } } }]);
    await expect(retryExport(setup.actor, row.id)).rejects.toMatchObject({ code: "conflict" });
  });

  it("backs off on quota errors during export and still exports once", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { eventId } = await commitOne(setup, T(18), T(19));
    fake.failNext(2, { status: 429, reason: "rateLimitExceeded", match: (m) => m === "POST" });
    await runDueExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "exported", attempts: 1 });
    expect(fake.liveEvents(setup.gcal)).toHaveLength(1);
  });

  it("an unlinked calendar's pending export is closed as failed, not retried forever", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    const { eventId } = await commitOne(setup, T(20), T(21));
    await unlinkCalendar(setup.actor, setup.link.id);
    await runDueExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "failed", lastError: expect.stringContaining("no longer linked") });
  });
});
