import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { eventReconciliations, webhookEvents } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedOutlookCalendar, withFakeMicrosoft } from "../../../../test/helpers/microsoft";
import { mcpClients } from "../../../../test/helpers/mcp-client";
import { syncLink } from "../sync-link";
import { runMicrosoftExport } from "./calendar-sync";
import { commitAndExport } from "../../../../test/helpers/commit-and-export";

const fakeMicrosoft = withFakeMicrosoft({ extra: { API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" } });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);

// Inside the delta window (a week back to 400 days ahead): days from three days on, UTC.
const DAY0 = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 3);
const at = (h: number, m = 0) => new Date(DAY0 + (h * 60 + m) * 60_000);
const T = (h: number, m = 0) => at(h, m).toISOString();
const utc = (d: Date) => ({ dateTime: d.toISOString().replace("Z", "0000"), timeZone: "UTC" });

type Setup = Awaited<ReturnType<typeof linkedOutlookCalendar>>;

const committedAndExported = (setup: Setup, start: string, end: string) => commitAndExport(api, setup, start, end, runMicrosoftExport);

async function sent(workspaceId: string) {
  const db = await getDb();
  const rows = await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspaceId)).orderBy(webhookEvents.id);
  return rows.filter((r) => ["event.moved_externally", "event.cancelled_externally", "event.conflicted"].includes(r.type)).map((r) => ({ type: r.type, event: (r.data as { event_id: string }).event_id }));
}

async function reconciliationOf(eventId: string) {
  const db = await getDb();
  const [row] = await db.select().from(eventReconciliations).where(eq(eventReconciliations.calendarEventId, eventId));
  return row ?? null;
}

describe("reconciliation after commit (Microsoft 365 / Outlook)", () => {
  it("moved, shortened, removed, declined by all and double-booked: each detected within one delta sync, announced once; an unrelated change is not flagged", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    const moved = await committedAndExported(setup, T(9), T(10));
    const shortened = await committedAndExported(setup, T(11), T(12));
    const removed = await committedAndExported(setup, T(13), T(14));
    const declined = await committedAndExported(setup, T(15), T(16));
    const booked = await committedAndExported(setup, T(17), T(18));
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", reconciled: 0 });

    fake.updateEvent(setup.mcal, moved.remoteId, { start: utc(at(20)), end: utc(at(21)), organizer: { emailAddress: { address: "boss@example.com" } } });
    fake.updateEvent(setup.mcal, shortened.remoteId, { end: utc(at(11, 30)) });
    fake.removeEvent(setup.mcal, removed.remoteId);
    fake.updateEvent(setup.mcal, declined.remoteId, {
      attendees: [
        { type: "required", emailAddress: { address: "a@example.com" }, status: { response: "declined" } },
        { type: "optional", emailAddress: { address: "b@example.com" }, status: { response: "declined" } },
        { type: "resource", emailAddress: { address: "room@example.com" }, status: { response: "accepted" } },
      ],
    });
    fake.addEvent(setup.mcal, { id: "overlap1", start: utc(at(17, 30)), end: utc(at(18, 30)), showAs: "busy" });
    fake.addEvent(setup.mcal, { id: "unrelated1", start: utc(at(22)), end: utc(at(23)), showAs: "busy" });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", full: false, reconciled: 5 });

    expect(await reconciliationOf(moved.eventId)).toMatchObject({
      state: "moved_externally",
      provider: "microsoft",
      providerEventId: moved.remoteId,
      providerStart: at(20),
      providerEnd: at(21),
      changed: ["start", "end"],
      providerChangedBy: "boss@example.com",
    });
    expect((await reconciliationOf(moved.eventId))!.providerUpdatedAt).toBeInstanceOf(Date);
    expect(await reconciliationOf(shortened.eventId)).toMatchObject({ state: "moved_externally", changed: ["end"], providerEnd: at(11, 30) });
    expect(await reconciliationOf(removed.eventId)).toMatchObject({ state: "cancelled_externally", providerStatus: "cancelled" });
    expect(await reconciliationOf(declined.eventId)).toMatchObject({ state: "cancelled_externally", providerStatus: "declined", changed: ["status"] });
    expect(await reconciliationOf(booked.eventId)).toMatchObject({
      state: "conflicted",
      conflicts: [{ kind: "external_busy", provider: "microsoft", provider_event_id: "overlap1", start_time: T(17, 30), end_time: T(18, 30) }],
    });

    // The next delta syncs see nothing new: still one announcement each.
    expect(await syncLink(setup.link.id)).toMatchObject({ reconciled: 0 });
    expect(await syncLink(setup.link.id)).toMatchObject({ reconciled: 0 });
    const expected = [
      { type: "event.moved_externally", event: moved.eventId },
      { type: "event.moved_externally", event: shortened.eventId },
      { type: "event.cancelled_externally", event: removed.eventId },
      { type: "event.cancelled_externally", event: declined.eventId },
      { type: "event.conflicted", event: booked.eventId },
    ];
    expect((await sent(setup.workspace.id)).sort((a, b) => a.event.localeCompare(b.event))).toEqual(expected.sort((a, b) => a.event.localeCompare(b.event)));

    // The agent's view: the five events needing attention, AgentDraft's times unchanged.
    const list = await api(`/api/v1/calendars/${setup.calendar.id}/events?attention=true`, { key: moved.key });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(5);
    expect(list.json.data.find((e: { id: string }) => e.id === moved.eventId)).toMatchObject({ start_time: T(9), end_time: T(10), reconciliation: { state: "moved_externally", provider_version: { start_time: T(20) } } });

    // The same through the MCP tool.
    const client = await connect(moved.key);
    const viaMcp = (await call(client, "list_calendar_events", { calendar_id: setup.calendar.id, attention: "true" })).structuredContent as { data: { id: string; reconciliation: { state: string } }[] };
    expect(viaMcp.data.map((e) => [e.id, e.reconciliation.state]).sort()).toEqual(
      [
        [moved.eventId, "moved_externally"],
        [shortened.eventId, "moved_externally"],
        [removed.eventId, "cancelled_externally"],
        [declined.eventId, "cancelled_externally"],
        [booked.eventId, "conflicted"],
      ].sort(),
    );
  });
});
