// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { getDb } from "../../../db/client";
import { auditEntries, calendarOrphans } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { mcpClients } from "../../../test/helpers/mcp-client";
import { linkedCalendar, withFakeGoogle } from "../../../test/helpers/google";
import { newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { OrphansCard } from "../../../app/(app)/calendars/[id]/orphans";
import { checkLinkDrift } from "./drift";
import { countOpenOrphans, dismissOrphan, listOrphans } from "./orphans";
import { runExport } from "./google/export-event";
import { syncLink } from "./google/sync-calendar";
import { commitAndExport } from "../../../test/helpers/commit-and-export";
import { onUtcDay } from "../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);

const T = onUtcDay(30);
// Half a year after T's day, outside the window of the exports.
const LATER = onUtcDay(30 + 207);
type Setup = Awaited<ReturnType<typeof linkedCalendar>>;

const committedAndExported = (setup: Setup, start: string, end: string) => commitAndExport(api, setup, start, end, runExport);

/** A linked calendar whose drift check found three orphans: two reported (open), one AgentDraft deleted (resolved at once). */
async function calendarWithOrphans(fake: ReturnType<typeof fakeGoogle>) {
  const setup = await linkedCalendar(fake);
  await syncLink(setup.link.id);
  const anchor = await committedAndExported(setup, T(8), T(9));
  const removed = await committedAndExported(setup, T(10), T(11));
  expect((await api(`/api/v1/events/${removed.eventId}`, { key: removed.key, method: "DELETE" })).status).toBe(200);
  expect(await runExport(removed.exportId)).toMatchObject({ ok: true });
  fake.updateEvent(setup.gcal, removed.remoteId, { status: "confirmed" });
  fake.addEvent(setup.gcal, { id: "copyof1", start: T(8, 30), end: T(9, 30), privateProperties: { agentdraft_event_id: anchor.eventId, agentdraft_export: "1" } });
  fake.addEvent(setup.gcal, { id: "stranger1", start: LATER(10), end: LATER(11), privateProperties: { agentdraft_event_id: "evt_doesnotexist000000000000", agentdraft_export: "1" } });
  expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", orphans: 3 });
  return { ...setup, anchor, removed };
}

describe("orphans: listed for people and agents, dismissed by a member", () => {
  it("the API and the MCP tool list a workspace's open orphans, by calendar, paginated; a member's dismissal is audited, once, and the orphan is not reported again", async () => {
    const fake = fakeGoogle();
    const setup = await calendarWithOrphans(fake);
    const other = await calendarWithOrphans(fake);
    const { key } = await newKey(setup.workspace.id, { scopes: ["calendar"] });

    // Open (the default): the two reported, newest first; the deleted one is resolved already.
    const open = await api(`/api/v1/calendar-orphans?calendar_id=${setup.calendar.id}`, { key });
    expect(open.status).toBe(200);
    expect(open.json.data.map((o: { provider_event_id: string }) => o.provider_event_id).sort()).toEqual(["copyof1", "stranger1"]);
    const stranger = open.json.data.find((o: { provider_event_id: string }) => o.provider_event_id === "stranger1");
    expect(stranger).toMatchObject({
      object: "calendar_orphan",
      calendar_id: setup.calendar.id,
      link_id: setup.link.id,
      provider: "google",
      tagged_event_id: "evt_doesnotexist000000000000",
      start_time: LATER(10),
      end_time: LATER(11),
      action: "reported",
      reason: "unknown_event",
      status: "open",
      resolved_at: null,
      resolved_by: null,
    });
    const resolved = await api(`/api/v1/calendar-orphans?calendar_id=${setup.calendar.id}&status=resolved`, { key });
    expect(resolved.json.data).toEqual([expect.objectContaining({ provider_event_id: setup.removed.remoteId, action: "deleted", status: "resolved", resolved_by: null })]);

    // Pages of one, newest first, ids descending; the workspace-wide list has only this workspace's.
    const first = await api(`/api/v1/calendar-orphans?calendar_id=${setup.calendar.id}&limit=1`, { key });
    expect(first.json).toMatchObject({ object: "list", has_more: true });
    const next = await api(`/api/v1/calendar-orphans?calendar_id=${setup.calendar.id}&limit=1&starting_after=${first.json.data[0].id}`, { key });
    expect(next.json.has_more).toBe(false);
    expect([first.json.data[0].id, next.json.data[0].id]).toEqual(open.json.data.map((o: { id: string }) => o.id));
    expect(first.json.data[0].id > next.json.data[0].id).toBe(true);
    const all = await api(`/api/v1/calendar-orphans?status=all&limit=100`, { key });
    expect(all.json.data).toHaveLength(3);
    expect(all.json.data.every((o: { calendar_id: string }) => o.calendar_id === setup.calendar.id)).toBe(true);
    expect((await api(`/api/v1/calendar-orphans?calendar_id=${other.calendar.id}`, { key })).json.data).toEqual([]);

    // Bad input is a 400 naming the field; a key without the calendar scope is refused.
    const bad = await api(`/api/v1/calendar-orphans?status=closed`, { key });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("validation_failed");
    expect((await api(`/api/v1/calendar-orphans?calendar_id=nope`, { key })).status).toBe(400);
    expect((await api(`/api/v1/calendar-orphans?limit=101`, { key })).status).toBe(400);
    const { key: mailOnly } = await newKey(setup.workspace.id, { scopes: ["mail"] });
    expect((await api(`/api/v1/calendar-orphans`, { key: mailOnly })).status).toBe(403);

    // The same through the MCP tool.
    const client = await connect(key);
    const viaMcp = (await call(client, "list_calendar_orphans", { calendar_id: setup.calendar.id })).structuredContent as { data: { id: string }[]; has_more: boolean };
    expect(viaMcp).toEqual({ object: "list", data: open.json.data, has_more: false });

    // The overview counts the open ones per calendar.
    expect(await countOpenOrphans(setup.workspace.id)).toEqual([{ id: setup.calendar.id, name: setup.calendar.name, count: 2 }]);

    // A member dismisses one; another workspace's member cannot; twice changes nothing.
    const { actor: admin } = await newMember(setup.workspace.id, "admin");
    const { actor: outsider } = await newMember(other.workspace.id, "admin");
    await expect(dismissOrphan(outsider, stranger.id)).rejects.toMatchObject({ code: "not_found" });
    // Two members at once, a few times each: one dismissal is made (and audited), the rest change nothing.
    const { actor: second } = await newMember(setup.workspace.id, "owner");
    const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => dismissOrphan(i % 2 ? second : admin, stranger.id, "  a copy from our staging deployment; deleted in Google  ")));
    expect(raced.filter((r) => r.changed)).toHaveLength(1);
    const done = raced.find((r) => r.changed)!;
    expect(done.orphan).toMatchObject({ resolutionNote: "a copy from our staging deployment; deleted in Google" });
    expect([admin.memberId, second.memberId]).toContain(done.orphan.resolvedBy);
    expect(raced.every((r) => r.orphan.resolvedBy === done.orphan.resolvedBy)).toBe(true);
    expect(await dismissOrphan(admin, stranger.id, "again")).toMatchObject({ changed: false, orphan: { resolutionNote: "a copy from our staging deployment; deleted in Google" } });
    await expect(dismissOrphan(admin, stranger.id, "x".repeat(501))).rejects.toThrow();
    const db = await getDb();
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, setup.workspace.id), eq(auditEntries.action, "calendar.orphan_dismissed")));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: "member", actorId: done.orphan.resolvedBy, resourceType: "calendar", resourceId: setup.calendar.id });
    expect(audit[0]!.summary).toMatchObject({ orphan_id: stranger.id, provider_event_id: "stranger1", note: "a copy from our staging deployment; deleted in Google" });

    const after = await api(`/api/v1/calendar-orphans?calendar_id=${setup.calendar.id}`, { key });
    expect(after.json.data.map((o: { provider_event_id: string }) => o.provider_event_id)).toEqual(["copyof1"]);
    const dismissed = (await api(`/api/v1/calendar-orphans?status=resolved`, { key })).json.data.find((o: { id: string }) => o.id === stranger.id);
    expect(dismissed).toMatchObject({ status: "resolved", resolved_by: done.orphan.resolvedBy, resolution_note: "a copy from our staging deployment; deleted in Google" });

    expect(await countOpenOrphans(setup.workspace.id)).toEqual([{ id: setup.calendar.id, name: setup.calendar.name, count: 1 }]);

    // Still in Google, checked again: not reported again.
    expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", orphans: 0 });
    expect(await db.select().from(calendarOrphans).where(eq(calendarOrphans.linkId, setup.link.id))).toHaveLength(3);
  });

  it("a provider calendar linked from two workspaces: each one's copies are not the other's orphans, a stranger's tag still is", async () => {
    const fake = fakeGoogle();
    const a = await linkedCalendar(fake);
    const b = await linkedCalendar(fake, a.gcal);
    await syncLink(a.link.id);
    await syncLink(b.link.id);
    const ofA = await committedAndExported(a, T(8), T(9));
    const ofB = await committedAndExported(b, T(10), T(11));
    expect(ofA.remoteId).not.toBe(ofB.remoteId);
    fake.addEvent(a.gcal, { id: "stranger2", start: T(12), end: T(13), privateProperties: { agentdraft_event_id: "evt_doesnotexist000000000001", agentdraft_export: "1" } });

    for (const setup of [a, b]) {
      expect(await checkLinkDrift(setup.link.id, { force: true })).toMatchObject({ status: "ok", orphans: 1 });
      const { items } = await listOrphans(setup.workspace.id, { calendar_id: setup.calendar.id, limit: 50 });
      expect(items.map((o) => [o.providerEventId, o.reason])).toEqual([["stranger2", "unknown_event"]]);
    }
    // Both copies are still in the calendar: neither workspace's check touched the other's.
    expect(fake.calendars.get(a.gcal)!.events.get(ofA.remoteId)?.status).toBe("confirmed");
    expect(fake.calendars.get(a.gcal)!.events.get(ofB.remoteId)?.status).toBe("confirmed");
  });

  it("the calendar page's card shows each open orphan, with the dismiss form when given one (admins)", async () => {
    const fake = fakeGoogle();
    const setup = await calendarWithOrphans(fake);
    const { items } = await listOrphans(setup.workspace.id, { calendar_id: setup.calendar.id, limit: 50 });
    // The page passes the admin's dismiss form (DismissOrphanForm, a server action); a stand-in here.
    const render = (admin: boolean) =>
      renderToStaticMarkup(
        createElement(OrphansCard, {
          orphans: items,
          source: "Google",
          format: (d: Date) => d.toISOString(),
          dismiss: admin ? (o) => createElement("input", { type: "hidden", name: "orphan_id", value: o.id }) : undefined,
        }),
      );
    const html = render(true);
    expect(html).toContain("Unexplained events in Google (2)");
    expect(html.match(/data-testid="orphan"/g)).toHaveLength(2);
    expect(html).toContain("tagged with an event AgentDraft never put in this calendar");
    expect(html).toContain("a second copy of an event AgentDraft booked");
    expect(html).toContain(`${LATER(10)} – ${LATER(11)}`);
    for (const o of items) expect(html).toContain(`name="orphan_id" value="${o.id}"`);
    const viewer = render(false);
    expect(viewer).toContain("stranger1");
    expect(viewer).not.toContain('name="orphan_id"');

    // No orphans of another workspace can be listed for this calendar.
    const { workspace: stranger } = await newWorkspace();
    expect((await listOrphans(stranger.id, { calendar_id: setup.calendar.id, limit: 50 })).items).toEqual([]);
  });
});
