// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { auditEntries, eventReconciliations, googleEventExports, webhookEvents } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { runExport } from "./export-event";
import { syncLink } from "./sync-calendar";
import { commitAndExport } from "../../../../test/helpers/commit-and-export";
import { onUtcDay } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);

type Setup = Awaited<ReturnType<typeof linkedCalendar>>;

/** Commits a hold and exports its event to the fake Google calendar; then a first sync sees our own copy (nothing to reconcile). */
const committedAndExported = (setup: Setup, start: string, end: string) => commitAndExport(api, setup, start, end, runExport);

async function webhooks(workspaceId: string, type?: string) {
  const db = await getDb();
  const rows = await db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId))).orderBy(webhookEvents.id);
  return rows.filter((r) => (type ? r.type === type : r.type.startsWith("event.") && r.type !== "event.cancelled"));
}

async function reconciliationOf(eventId: string) {
  const db = await getDb();
  const [row] = await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, eventId));
  return row ?? null;
}

describe("reconciliation after commit (Google)", () => {
  it("a person moving the exported event: detected within one sync, recorded and announced once, nothing moved back", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const { eventId, remoteId, key } = await committedAndExported(setup, T(10), T(11));
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });
    expect(await reconciliationOf(eventId)).toBeNull();

    fake.updateEvent(setup.gcal, remoteId, { start: { dateTime: T(14) }, end: { dateTime: T(15) }, organizer: { email: "boss@example.com" } });
    // Three runs of the sync at once (a push and the periodic resync racing): one records it.
    const runs = await Promise.all([syncLink(setup.link.id), syncLink(setup.link.id), syncLink(setup.link.id)]);
    // A run that found the link busy skips (null); one that started after the first committed
    // sees nothing new. Either way the move is recorded by exactly one of them.
    const ran = runs.filter((r) => r !== null);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    for (const r of ran) expect(r).toMatchObject({ status: "ok" });
    expect(ran.reduce((n, r) => n + (r as { reconciled: number }).reconciled, 0)).toBe(1);
    expect(await reconciliationOf(eventId)).toMatchObject({
      state: "moved_externally",
      provider: "google",
      providerEventId: remoteId,
      providerStatus: "confirmed",
      providerStart: new Date(T(14)),
      providerEnd: new Date(T(15)),
      changed: ["start", "end"],
      conflicts: [],
      providerChangedBy: "boss@example.com",
    });
    expect((await reconciliationOf(eventId))!.providerUpdatedAt).toBeInstanceOf(Date);

    // Seen again (an incremental sync, then a full resync after the token expired): still once.
    expect(await syncLink(setup.link.id)).toMatchObject({ reconciled: 0 });
    fake.expireSyncTokens();
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: true, reconciled: 0 });
    const sent = await webhooks(setup.workspace.id);
    expect(sent.map((w) => w.type)).toEqual(["event.moved_externally"]);
    expect(sent[0]!.data).toMatchObject({
      event_id: eventId,
      calendar_id: setup.calendar.id,
      state: "moved_externally",
      changed: ["start", "end"],
      agentdraft: { start_time: T(10), end_time: T(11), status: "confirmed" },
      provider_version: { status: "confirmed", start_time: T(14), end_time: T(15), changed_by: "boss@example.com" },
    });

    // AgentDraft's version stands; the event is listed as needing attention.
    const list = await api(`/api/v1/calendars/${setup.calendar.id}/events?attention=true`, { key });
    expect(list.status).toBe(200);
    expect(list.json.data).toMatchObject([{ id: eventId, start_time: T(10), end_time: T(11), reconciliation: { state: "moved_externally", provider_version: { start_time: T(14) } } }]);

    // Shortened afterwards: a new change, announced once more.
    fake.updateEvent(setup.gcal, remoteId, { start: { dateTime: T(14) }, end: { dateTime: T(14, 30) } });
    await syncLink(setup.link.id);
    await syncLink(setup.link.id);
    expect((await webhooks(setup.workspace.id)).map((w) => w.type)).toEqual(["event.moved_externally", "event.moved_externally"]);
    expect(await reconciliationOf(eventId)).toMatchObject({ changed: ["end"], changes: 2 });

    const db = await getDb();
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.resourceId, eventId), eq(auditEntries.action, "event.moved_externally")));
    expect(audit).toHaveLength(2);
  });

  it("deleted or declined by all attendees: cancelled_externally, once", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const gone = await committedAndExported(setup, T(9), T(10));
    const declined = await committedAndExported(setup, T(11), T(12));
    const kept = await committedAndExported(setup, T(13), T(14));
    await syncLink(setup.link.id);

    fake.deleteEvent(setup.gcal, gone.remoteId);
    fake.updateEvent(setup.gcal, declined.remoteId, {
      attendees: [
        { email: fake.email, self: true, organizer: true, responseStatus: "accepted" },
        { email: "a@example.com", responseStatus: "declined" },
        { email: "b@example.com", responseStatus: "declined" },
      ],
    });
    // One attendee of three declined: not declined by all.
    fake.updateEvent(setup.gcal, kept.remoteId, {
      attendees: [
        { email: "a@example.com", responseStatus: "declined" },
        { email: "c@example.com", responseStatus: "accepted" },
      ],
    });
    expect(await syncLink(setup.link.id)).toMatchObject({ reconciled: 2 });
    await syncLink(setup.link.id);
    expect(await reconciliationOf(gone.eventId)).toMatchObject({ state: "cancelled_externally", providerStatus: "cancelled", providerStart: null, changed: ["start", "end", "status"] });
    expect(await reconciliationOf(declined.eventId)).toMatchObject({ state: "cancelled_externally", providerStatus: "declined", changed: ["status"] });
    expect(await reconciliationOf(kept.eventId)).toBeNull();
    const sent = await webhooks(setup.workspace.id, "event.cancelled_externally");
    expect(sent.map((w) => (w.data as { event_id: string }).event_id).sort()).toEqual([gone.eventId, declined.eventId].sort());
    expect(await webhooks(setup.workspace.id)).toHaveLength(2);
  });

  it("a person's event over the exported one: conflicted, once; an unrelated change is not flagged; AgentDraft's own cancel is not flagged", async () => {
    const fake = fakeGoogle();
    const setup = await linkedCalendar(fake);
    await syncLink(setup.link.id);
    const { eventId, key } = await committedAndExported(setup, T(10), T(11));
    const other = await committedAndExported(setup, T(16), T(17));
    await syncLink(setup.link.id);

    fake.addEvent(setup.gcal, { id: "unrelated1", start: T(12), end: T(13) });
    expect(await syncLink(setup.link.id)).toMatchObject({ reconciled: 0 });
    fake.addEvent(setup.gcal, { id: "overlap1", start: T(10, 30), end: T(11, 30) });
    expect(await syncLink(setup.link.id)).toMatchObject({ reconciled: 1 });
    await syncLink(setup.link.id);
    expect(await reconciliationOf(eventId)).toMatchObject({
      state: "conflicted",
      providerStatus: "confirmed",
      changed: ["conflicts"],
      conflicts: [{ kind: "external_busy", provider: "google", provider_event_id: "overlap1", start_time: T(10, 30), end_time: T(11, 30) }],
    });
    const sent = await webhooks(setup.workspace.id);
    expect(sent.map((w) => w.type)).toEqual(["event.conflicted"]);
    expect(sent[0]!.data).toMatchObject({ event_id: eventId, new_conflicts: [{ provider_event_id: "overlap1" }] });

    // The overlap removed: back in sync, quietly, and no longer needing attention.
    fake.deleteEvent(setup.gcal, "overlap1");
    await syncLink(setup.link.id);
    expect(await reconciliationOf(eventId)).toMatchObject({ state: "in_sync", conflicts: [] });
    expect((await api(`/api/v1/calendars/${setup.calendar.id}/events?attention=true`, { key })).json.data).toEqual([]);

    // Moved by a person onto another committed event: moved, with what it now overlaps.
    const remote = fake.liveEvents(setup.gcal).find((e) => e.extendedProperties?.private?.agentdraft_event_id === eventId)!;
    fake.moveEvent(setup.gcal, remote.id, T(16, 30), T(17, 30));
    await syncLink(setup.link.id);
    expect(await reconciliationOf(eventId)).toMatchObject({ state: "moved_externally", conflicts: [{ kind: "event", id: other.eventId }] });

    // AgentDraft's own cancel (its copy removed by the export) is not a person's change.
    expect((await api(`/api/v1/events/${other.eventId}`, { key: other.key, method: "DELETE" })).status).toBe(200);
    const db = await getDb();
    const [row] = await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, other.eventId));
    await runExport(row!.id);
    await syncLink(setup.link.id);
    expect(await reconciliationOf(other.eventId)).toBeNull();
    expect((await webhooks(setup.workspace.id)).map((w) => w.type)).toEqual(["event.conflicted", "event.moved_externally"]);
  });
});
