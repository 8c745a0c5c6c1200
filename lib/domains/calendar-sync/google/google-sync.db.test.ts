// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { auditEntries, externalBusyIntervals, googleCalendarLinks, googleConnections, webhookEvents } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { CALLBACK, connectGoogle, linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { newKey, newMember, newWorkspace } from "../../../../test/helpers/fixtures";
import { completeGoogleConnect, disconnectGoogle, startGoogleConnect } from "./connections";
import { syncDueLinks, syncLink } from "./sync-calendar";
import { linkCalendar, listGoogleCalendars } from "./links";
import { QUOTA_ATTEMPTS } from "./quota";
import { onUtcDay, utcDate } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);
// The day after T's, all day.
const NEXT_DAY = utcDate(31);
const DAY_AFTER = utcDate(32);

async function busyOf(calendarId: string) {
  const db = await getDb();
  const rows = await db.select().from(externalBusyIntervals).where(eq(externalBusyIntervals.calendarId, calendarId));
  return rows.map((r) => `${r.googleEventId} ${r.startTime.toISOString()}..${r.endTime.toISOString()}`).sort();
}

async function eventsOfType(workspaceId: string, type: string) {
  const db = await getDb();
  return db.select().from(webhookEvents).where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.type, type)));
}

describe("connecting a Google account", () => {
  it("runs the OAuth code flow with PKCE, stores the refresh token sealed, and lists the account's calendars", async () => {
    const fake = fakeGoogle();
    const { workspace } = await newWorkspace();
    const { member } = await newMember(workspace.id, "owner");
    const connection = await connectGoogle(member);
    expect(connection).toMatchObject({ workspaceId: workspace.id, googleEmail: fake.email, status: "active", memberId: member.id });
    expect(connection.scopes).toEqual(expect.arrayContaining(["https://www.googleapis.com/auth/calendar.events"]));
    // Sealed with AES-256-GCM: the stored value is not the token Google issued.
    expect(connection.refreshTokenSealed).toMatch(/^v1\./);
    expect(connection.refreshTokenSealed).not.toContain("1//fake-");
    const calendars = await listGoogleCalendars(connection);
    expect(calendars).toContainEqual(expect.objectContaining({ id: fake.email, primary: true }));

    const db = await getDb();
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "google.connected")));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.summary).not.toHaveProperty("refresh_token");
  });

  it("refuses a callback whose state is not this browser's, or that another member started, and stores nothing", async () => {
    const { workspace } = await newWorkspace();
    const { member } = await newMember(workspace.id, "admin");
    const { member: other } = await newMember(workspace.id, "admin");
    const { url, cookie } = startGoogleConnect(member, CALLBACK);
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location")!);
    const code = back.searchParams.get("code");
    await expect(completeGoogleConnect(member, { cookie, state: "forged-state", code })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(completeGoogleConnect(member, { cookie: undefined, state: back.searchParams.get("state"), code })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(completeGoogleConnect(member, { cookie: "v1.tampered.x.y", state: back.searchParams.get("state"), code })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(completeGoogleConnect(other, { cookie, state: back.searchParams.get("state"), code })).rejects.toMatchObject({ code: "forbidden" });
    const db = await getDb();
    expect(await db.select().from(googleConnections).where(eq(googleConnections.workspaceId, workspace.id))).toEqual([]);
  });

  it("lets only admins and owners connect", async () => {
    const { workspace } = await newWorkspace();
    const { member: approver } = await newMember(workspace.id, "approver");
    expect(() => startGoogleConnect(approver, CALLBACK)).toThrow(expect.objectContaining({ code: "forbidden" }));
  });

  it("disconnect revokes the token at Google, unlinks its calendars and forgets the token", async () => {
    const fake = fakeGoogle();
    const { workspace, actor, connection, calendar, gcal } = await linkedCalendar(fake);
    fake.addEvent(gcal, { start: T(9), end: T(10) });
    await syncLink((await getDb().then((db) => db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.calendarId, calendar.id))))[0]!.id);
    expect(await busyOf(calendar.id)).toHaveLength(1);
    const revocations = fake.requests.filter((r) => r.path === "/revoke").length;

    const result = await disconnectGoogle(actor, connection.id);
    expect(result.revokedAtGoogle).toBe(true);
    expect(fake.requests.filter((r) => r.path === "/revoke" && r.status === 200)).toHaveLength(revocations + 1);
    expect(result.connection).toMatchObject({ status: "revoked", refreshTokenSealed: null });
    expect(await busyOf(calendar.id)).toEqual([]);
    const db = await getDb();
    expect(await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.workspaceId, workspace.id))).toEqual([]);
    // A disconnected connection is gone from this workspace's point of view.
    await expect(disconnectGoogle(actor, connection.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("keeps workspaces apart: another workspace's connection or calendar is not found", async () => {
    const fake = fakeGoogle();
    const a = await linkedCalendar(fake);
    const { workspace: other } = await newWorkspace();
    const { actor: otherAdmin } = await newMember(other.id, "admin");
    await expect(linkCalendar(otherAdmin, { calendar_id: a.calendar.id, connection_id: a.connection.id, google_calendar_id: a.gcal })).rejects.toMatchObject({ code: "not_found" });
    await expect(disconnectGoogle(otherAdmin, a.connection.id)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("importing busy time", () => {
  it("does a paged full sync, then incremental syncs with the sync token", async () => {
    const fake = fakeGoogle();
    const { link, calendar, gcal, workspace } = await linkedCalendar(fake);
    fake.setPageSize(2);
    try {
      const a = fake.addEvent(gcal, { id: "evta1", start: T(9), end: T(10) });
      fake.addEvent(gcal, { id: "evtb1", start: T(11), end: T(12) });
      fake.addEvent(gcal, { id: "evtfree", start: T(13), end: T(14), transparency: "transparent" });
      fake.addEvent(gcal, { id: "evtallday", start: NEXT_DAY, end: DAY_AFTER, allDay: true });
      fake.addEvent(gcal, { id: "evtc1", start: T(15), end: T(16) });

      const first = await syncLink(link.id);
      expect(first).toMatchObject({ status: "ok", full: true, upserted: 4, removed: 0 });
      const listCalls = fake.requests.filter((r) => r.path.endsWith(`/calendars/${encodeURIComponent(gcal)}/events`));
      expect(listCalls.length).toBe(3); // 5 events, 2 a page
      expect(listCalls.slice(1).every((r) => r.query.includes("pageToken="))).toBe(true);
      expect(await busyOf(calendar.id)).toEqual([
        `evta1 ${T(9)}..${T(10)}`,
        `evtallday ${T(24)}..${T(48)}`,
        `evtb1 ${T(11)}..${T(12)}`,
        `evtc1 ${T(15)}..${T(16)}`,
      ]);

      // Changes at Google: one moved, one deleted, one added. The next sync asks only for changes.
      fake.moveEvent(gcal, a.id, T(8), T(9));
      fake.deleteEvent(gcal, "evtb1");
      fake.addEvent(gcal, { id: "evtd1", start: T(17), end: T(18) });
      const before = fake.requests.length;
      const second = await syncLink(link.id);
      expect(second).toMatchObject({ status: "ok", full: false, upserted: 2, removed: 1 });
      const incremental = fake.requests.slice(before).filter((r) => r.path.includes("/events"));
      expect(incremental.length).toBeGreaterThan(0);
      expect(incremental[0]!.query).toContain("syncToken=");
      expect(await busyOf(calendar.id)).toEqual([
        `evta1 ${T(8)}..${T(9)}`,
        `evtallday ${T(24)}..${T(48)}`,
        `evtc1 ${T(15)}..${T(16)}`,
        `evtd1 ${T(17)}..${T(18)}`,
      ]);

      // Nothing changed: a quiet resync announces nothing new.
      expect(await syncLink(link.id)).toMatchObject({ status: "ok", full: false, upserted: 0, removed: 0 });
      expect(await eventsOfType(workspace.id, "calendar.synced")).toHaveLength(2);
    } finally {
      fake.setPageSize(250);
    }
  });

  it("starts over with a full sync when Google answers 410 Gone to the sync token", async () => {
    const fake = fakeGoogle();
    const { link, calendar, gcal } = await linkedCalendar(fake);
    fake.addEvent(gcal, { id: "keep1", start: T(9), end: T(10) });
    fake.addEvent(gcal, { id: "drop1", start: T(11), end: T(12) });
    await syncLink(link.id);
    fake.expireSyncTokens();
    fake.deleteEvent(gcal, "drop1");
    fake.addEvent(gcal, { id: "new1", start: T(13), end: T(14) });
    const before = fake.requests.length;
    const result = await syncLink(link.id);
    expect(result).toMatchObject({ status: "ok", full: true });
    const calls = fake.requests.slice(before).filter((r) => r.path.includes("/events"));
    expect(calls[0]).toMatchObject({ status: 410 });
    expect(calls[0]!.query).toContain("syncToken=");
    expect(calls[1]!.query).not.toContain("syncToken=");
    expect(await busyOf(calendar.id)).toEqual([`keep1 ${T(9)}..${T(10)}`, `new1 ${T(13)}..${T(14)}`]);
    // And the new token works incrementally again.
    fake.addEvent(gcal, { id: "later1", start: T(20), end: T(21) });
    expect(await syncLink(link.id)).toMatchObject({ status: "ok", full: false, upserted: 1 });
  });

  it("an event in Google Calendar blocks a hold with an external_busy conflict, and shows in availability", async () => {
    const fake = fakeGoogle();
    const { link, calendar, gcal, workspace } = await linkedCalendar(fake);
    fake.addEvent(gcal, { id: "dentist1", start: T(14), end: T(15), summary: "Dentist (private)" });
    await syncLink(link.id);
    const { key } = await newKey(workspace.id);

    const refused = await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(14, 30), end_time: T(16), priority: 100, hold_ttl_seconds: 60 } });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("hold_conflict");
    expect(refused.json.conflicts).toEqual([expect.objectContaining({ type: "external_busy", calendar_id: calendar.id, source: "google", start_time: T(14), end_time: T(15) })]);
    // Only when, never what: the event's title is not shown to agents.
    expect(refused.text).not.toContain("Dentist");

    expect((await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(15), end_time: T(16), hold_ttl_seconds: 60 } })).status).toBe(201);
    const free = await api(`/api/v1/calendars/${calendar.id}/availability?from=${T(13)}&to=${T(17)}`, { key });
    expect(free.json.busy).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "external_busy", start_time: T(14), end_time: T(15) })]));
    expect(free.json.free).toEqual([{ start_time: T(13), end_time: T(14) }, { start_time: T(16), end_time: T(17) }]);

    // Deleted at Google: after the next sync the time is free again.
    fake.deleteEvent(gcal, "dentist1");
    await syncLink(link.id);
    expect((await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(14), end_time: T(15), hold_ttl_seconds: 60 } })).status).toBe(201);
  });

  it("an event someone tagged as AgentDraft's in Google still blocks: only this link's own exports are skipped", async () => {
    const fake = fakeGoogle();
    const { link, calendar, gcal, workspace } = await linkedCalendar(fake);
    // Anyone who can write to the Google calendar can set private properties on their event.
    fake.addEvent(gcal, { id: "boardmeeting1", start: T(10), end: T(11), privateProperties: { agentdraft_event_id: "evt_made_up", agentdraft_hold_id: "hold_x" } });
    await syncLink(link.id);
    expect(await busyOf(calendar.id)).toEqual([`boardmeeting1 ${T(10)}..${T(11)}`]);
    const { key } = await newKey(workspace.id);
    const refused = await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(10), end_time: T(11), priority: 100, hold_ttl_seconds: 60 } });
    expect(refused.json).toMatchObject({ code: "hold_conflict", conflicts: [expect.objectContaining({ type: "external_busy" })] });
  });

  it("a hold whose time became busy in Google after it was granted cannot be committed, and stays held", async () => {
    const fake = fakeGoogle();
    const { link, calendar, gcal, workspace } = await linkedCalendar(fake);
    const { key } = await newKey(workspace.id);
    const hold = await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(10), end_time: T(11), hold_ttl_seconds: 120 } });
    expect(hold.status).toBe(201);
    fake.addEvent(gcal, { id: "standup", start: T(10, 30), end: T(10, 45), summary: "Stand-up" });
    await syncLink(link.id);
    const refused = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: "hold_conflict", conflicts: [expect.objectContaining({ type: "external_busy", start_time: T(10, 30), end_time: T(10, 45) })] });
    expect((await api(`/api/v1/holds/${hold.json.id}`, { key })).json.status).toBe("held");
    fake.deleteEvent(gcal, "standup");
    await syncLink(link.id);
    expect((await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" })).status).toBe(200);
  });
});

describe("quotas and failures", () => {
  it("backs off on 403 rateLimitExceeded and 429, then succeeds", async () => {
    const fake = fakeGoogle();
    const { link, calendar, gcal } = await linkedCalendar(fake);
    fake.addEvent(gcal, { id: "q1", start: T(9), end: T(10) });
    const before = fake.requests.length;
    fake.failNext(2, { status: 403, reason: "rateLimitExceeded" });
    fake.failNext(1, { status: 429, reason: "rateLimitExceeded" });
    const started = Date.now();
    expect(await syncLink(link.id)).toMatchObject({ status: "ok", upserted: 1 });
    const statuses = fake.requests.slice(before).map((r) => r.status);
    expect(statuses.slice(0, 4)).toEqual([403, 403, 429, 200]);
    // Base 5 ms doubling, at least half each time: 2.5 + 5 + 10 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(17);
    expect(await busyOf(calendar.id)).toHaveLength(1);
  });

  it("a 403 that is not a usage limit is not retried; quota errors past the last attempt fail the sync, once announced, then recover", async () => {
    const fake = fakeGoogle();
    const { link, workspace } = await linkedCalendar(fake);
    const before = fake.requests.length;
    fake.failNext(1, { status: 403, reason: "forbidden", domain: "global" });
    expect(await syncLink(link.id)).toMatchObject({ status: "failed", error: expect.stringContaining("403 forbidden") });
    expect(fake.requests.length - before).toBe(1);

    await getDb().then((db) => db.update(googleCalendarLinks).set({ nextSyncAt: new Date(0) }).where(eq(googleCalendarLinks.id, link.id)));
    fake.failNext(QUOTA_ATTEMPTS, { status: 403, reason: "userRateLimitExceeded" });
    expect(await syncLink(link.id)).toMatchObject({ status: "failed", error: expect.stringContaining("userRateLimitExceeded") });
    expect(fake.pendingFailures()).toBe(0);

    const db = await getDb();
    const [failed] = await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id));
    expect(failed).toMatchObject({ syncStatus: "failed", syncFailures: 2 });
    expect(failed!.nextSyncAt.getTime()).toBeGreaterThan(Date.now());
    const failures = await eventsOfType(workspace.id, "calendar.sync_failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]!.data).toMatchObject({ link_id: link.id, direction: "import" });
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "calendar.sync_failed")));
    expect(audit).toMatchObject([{ outcome: "failed" }]);

    // Not due yet: the job leaves it alone; once due it recovers. Kept to this workspace: another
    // file's due links (one database) would be synced against this file's fake Google, and theirs fail.
    await syncDueLinks(1000, { workspaceId: workspace.id });
    expect((await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)))[0]).toMatchObject({ syncStatus: "failed", syncFailures: 2 });
    await db.update(googleCalendarLinks).set({ nextSyncAt: new Date(0) }).where(eq(googleCalendarLinks.id, link.id));
    expect(await syncDueLinks(1000, { workspaceId: workspace.id })).toBe(1);
    const [ok] = await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id));
    expect(ok).toMatchObject({ syncStatus: "ok", syncFailures: 0, lastSyncError: null });
  });

  it("limits the rate of calls per Google connection", async () => {
    const fake = fakeGoogle();
    const { connection } = await linkedCalendar(fake);
    const { callGoogle } = await import("./quota");
    process.env.GOOGLE_RATE_LIMIT_PER_SECOND = "10"; // burst 20, then 10 a second
    const { resetEnvCache } = await import("../../../platform/config/env");
    resetEnvCache();
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 30 }, () => callGoogle(connection.id, async () => 1)));
      // 20 at once, the other 10 at 10/s: about a second.
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    } finally {
      process.env.GOOGLE_RATE_LIMIT_PER_SECOND = "1000";
      resetEnvCache();
    }
  });

  it("a refresh token revoked at Google marks the connection for reconnecting and the sync failed", async () => {
    const fake = fakeGoogle();
    const { link, connection } = await linkedCalendar(fake);
    await syncLink(link.id);
    fake.revokeAllAtGoogle();
    // A fresh process has no cached access token.
    const { forgetClient } = await import("./authorized-client");
    forgetClient(connection.id);
    const result = await syncLink(link.id);
    expect(result).toMatchObject({ status: "failed", error: expect.stringContaining("invalid_grant") });
    const db = await getDb();
    const [row] = await db.select().from(googleConnections).where(eq(googleConnections.id, connection.id));
    expect(row).toMatchObject({ status: "error" });
  });
});
