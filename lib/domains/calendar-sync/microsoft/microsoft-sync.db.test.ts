import { describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { auditEntries, externalBusyIntervals, googleCalendarLinks, googleConnections, googleEventExports } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { newKey, newMember, newWorkspace } from "../../../../test/helpers/fixtures";
import { connectMicrosoft, linkedOutlookCalendar, MICROSOFT_CALLBACK, withFakeMicrosoft } from "../../../../test/helpers/microsoft";
import { syncLink } from "../sync-link";
import { completeMicrosoftConnect, disconnectMicrosoft, runDueMicrosoftExports, startMicrosoftConnect, unlinkMicrosoftCalendar } from "./calendar-sync";
import { renewSubscription } from "./notifications";
import { EVENT_PROPERTY_ID, HOLD_PROPERTY_ID } from "./provider";

const fakeMicrosoft = withFakeMicrosoft({ push: true, extra: { API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" } });
const { api } = serveApiForTests();

// Inside the delta window (a week back to 400 days ahead): days from tomorrow, UTC.
const DAY0 = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 3);
const at = (day: number, h: number, m = 0) => new Date(DAY0 + day * 86_400_000 + (h * 60 + m) * 60_000);
const wall = (d: Date) => d.toISOString().replace("Z", "0000");
const T = (day: number, h: number) => at(day, h).toISOString();
const date = (day: number) => T(day, 0).slice(0, 10);
const utc = (d: Date) => ({ dateTime: wall(d), timeZone: "UTC" });

async function busyOf(calendarId: string) {
  const db = await getDb();
  const rows = await db.select().from(externalBusyIntervals).where(eq(externalBusyIntervals.calendarId, calendarId)).orderBy(asc(externalBusyIntervals.startTime), asc(externalBusyIntervals.googleEventId));
  return rows.map((r) => `${r.googleEventId} ${r.startTime.toISOString()}..${r.endTime.toISOString()} ${r.source}`);
}

describe("connecting Microsoft 365", () => {
  it("runs the code flow with PKCE, stores the refresh token sealed, and refuses a grant without Calendars.ReadWrite", async () => {
    const fake = fakeMicrosoft();
    const { workspace } = await newWorkspace();
    const { member } = await newMember(workspace.id, "admin");
    const connection = await connectMicrosoft(member);
    expect(connection).toMatchObject({ provider: "microsoft", googleEmail: fake.email, status: "active" });
    expect(connection.scopes).toEqual(expect.arrayContaining(["Calendars.ReadWrite"]));
    const db = await getDb();
    const [row] = await db.select().from(googleConnections).where(eq(googleConnections.id, connection.id));
    expect(row!.refreshTokenSealed).toBeTruthy();
    expect(row!.refreshTokenSealed).not.toContain("M.R3_fake");
    const authorize = fake.requests.find((r) => r.path === "/common/oauth2/v2.0/authorize")!;
    expect(authorize.query).toContain("code_challenge_method=S256");
    expect(authorize.query).toContain("offline_access");

    // A state from another flow is refused; so is a grant missing the calendar permission.
    const { url } = startMicrosoftConnect(member, MICROSOFT_CALLBACK);
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location")!);
    const other = startMicrosoftConnect(member, MICROSOFT_CALLBACK);
    await expect(completeMicrosoftConnect(member, { cookie: other.cookie, state: back.searchParams.get("state"), code: back.searchParams.get("code") })).rejects.toMatchObject({ code: "invalid_request" });
    fake.grantOnly(["offline_access", "User.Read"]);
    try {
      await expect(connectMicrosoft(member)).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("Calendars.ReadWrite") });
    } finally {
      fake.grantOnly(null);
    }
    const actions = (await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id))).map((a) => a.action);
    expect(actions).toContain("microsoft.connected");
  });
});

describe("importing Outlook busy time", () => {
  it("delta-syncs in pages, maps showAs, all-day in the mailbox zone, recurring occurrences; then incremental from the delta link", async () => {
    const fake = fakeMicrosoft();
    const { link, calendar, mcal, workspace } = await linkedOutlookCalendar(fake);
    fake.setPageSize(2);
    fake.setMailboxTimeZone("Pacific Standard Time");
    try {
      fake.addEvent(mcal, { id: "busy1", start: utc(at(0, 9)), end: utc(at(0, 10)), showAs: "busy" });
      fake.addEvent(mcal, { id: "tent1", start: utc(at(0, 11)), end: utc(at(0, 12)), showAs: "tentative" });
      fake.addEvent(mcal, { id: "oof1", start: utc(at(0, 13)), end: utc(at(0, 14)), showAs: "oof" });
      fake.addEvent(mcal, { id: "away1", start: utc(at(0, 15)), end: utc(at(0, 16)), showAs: "workingElsewhere" });
      fake.addEvent(mcal, { id: "free1", start: utc(at(0, 17)), end: utc(at(0, 18)), showAs: "free" });
      fake.addEvent(mcal, { id: "gone1", start: utc(at(0, 19)), end: utc(at(0, 20)), isCancelled: true });
      fake.addEvent(mcal, { id: "decl1", start: utc(at(0, 21)), end: utc(at(0, 22)), responseStatus: { response: "declined" } });
      fake.addEvent(mcal, { id: "allday", start: { dateTime: `${date(2)}T00:00:00.0000000`, timeZone: "UTC" }, end: { dateTime: `${date(3)}T00:00:00.0000000`, timeZone: "UTC" }, isAllDay: true });
      fake.addEvent(mcal, { id: "standup", start: utc(at(4, 9)), end: utc(at(4, 9, 15)), recurrence: { count: 3 } });

      // Three runs of the job at once: the lease admits one; the others do nothing.
      const runs = await Promise.all([syncLink(link.id), syncLink(link.id), syncLink(link.id)]);
      expect(runs.filter((r) => r !== null)).toHaveLength(1);
      const first = runs.find((r) => r !== null);
      expect(first).toMatchObject({ status: "ok", full: true, upserted: 8, removed: 0 });
      const deltaCalls = fake.requests.filter((r) => r.path.endsWith("/calendarView/delta"));
      expect(deltaCalls.length).toBeGreaterThan(4); // paged by @odata.nextLink
      expect(deltaCalls[0]!.query).toContain("startDateTime=");
      expect(deltaCalls.slice(1).every((r) => r.query.includes("$skiptoken="))).toBe(true);
      // Pacific Standard Time: the all-day event runs from local midnight (08:00Z in winter, 07:00Z in summer).
      const allDay = (await busyOf(calendar.id)).find((b) => b.startsWith("allday "))!;
      expect(allDay).toMatch(new RegExp(`^allday ${date(2)}T0[78]:00:00.000Z..${date(3)}T0[78]:00:00.000Z microsoft$`));
      expect(await busyOf(calendar.id)).toEqual(
        expect.arrayContaining([
          `busy1 ${T(0, 9)}..${T(0, 10)} microsoft`,
          `tent1 ${T(0, 11)}..${T(0, 12)} microsoft`,
          `oof1 ${T(0, 13)}..${T(0, 14)} microsoft`,
          `away1 ${T(0, 15)}..${T(0, 16)} microsoft`,
          `standup_occ0 ${T(4, 9)}..${at(4, 9, 15).toISOString()} microsoft`,
          `standup_occ2 ${T(6, 9)}..${at(6, 9, 15).toISOString()} microsoft`,
        ]),
      );
      expect((await busyOf(calendar.id)).some((b) => /^(free1|gone1|decl1) /.test(b))).toBe(false);

      // An agent's hold over Outlook busy time is refused, and the conflict says where it came from.
      const { key } = await newKey(workspace.id);
      const hold = await api(`/api/v1/calendars/${calendar.id}/holds`, { key, body: { start_time: T(0, 9), end_time: T(0, 10), hold_ttl_seconds: 60 } });
      expect(hold.status).toBe(409);
      expect(hold.json.conflicts).toEqual([expect.objectContaining({ type: "external_busy", source: "microsoft" })]);

      // Changes: one moved, one removed, one shown as free now. The next sync follows the delta link.
      fake.updateEvent(mcal, "busy1", { start: utc(at(1, 9)), end: utc(at(1, 10)) });
      fake.removeEvent(mcal, "tent1");
      fake.updateEvent(mcal, "oof1", { showAs: "free" });
      const before = fake.requests.length;
      const second = await syncLink(link.id);
      expect(second).toMatchObject({ status: "ok", full: false, upserted: 1, removed: 2 });
      expect(fake.requests.slice(before).find((r) => r.path.endsWith("/calendarView/delta"))!.query).toContain("$deltatoken=");
      const now = await busyOf(calendar.id);
      expect(now).toContain(`busy1 ${T(1, 9)}..${T(1, 10)} microsoft`);
      expect(now.some((b) => /^(tent1|oof1) /.test(b))).toBe(false);
    } finally {
      fake.setPageSize(1000);
      fake.setMailboxTimeZone("UTC");
    }
  });

  it("starts over with a full sync when the delta link is no longer valid (410 syncStateNotFound), and waits out a 429", async () => {
    const fake = fakeMicrosoft();
    const { link, calendar, mcal } = await linkedOutlookCalendar(fake);
    fake.addEvent(mcal, { id: "keep1", start: utc(at(0, 9)), end: utc(at(0, 10)) });
    expect(await syncLink(link.id)).toMatchObject({ status: "ok", full: true, upserted: 1 });
    fake.expireDeltaTokens();
    fake.addEvent(mcal, { id: "new1", start: utc(at(0, 11)), end: utc(at(0, 12)) });
    fake.failNext({ status: 429, code: "TooManyRequests", retryAfter: 0, match: (_m, p) => p.endsWith("/calendarView/delta") });
    const again = await syncLink(link.id);
    expect(again).toMatchObject({ status: "ok", full: true, upserted: 1, removed: 0 });
    expect(fake.requests.some((r) => r.status === 410)).toBe(true);
    expect(fake.requests.some((r) => r.status === 429)).toBe(true);
    expect((await busyOf(calendar.id)).map((b) => b.split(" ")[0])).toEqual(["keep1", "new1"]);
  });

  it("a refused refresh token marks the connection for reconnecting and the link failed, once", async () => {
    const fake = fakeMicrosoft();
    const { link, connection } = await linkedOutlookCalendar(fake);
    const { forgetToken } = await import("./graph");
    forgetToken(connection.id);
    fake.revokeAll();
    const result = await syncLink(link.id);
    expect(result).toMatchObject({ status: "failed", error: expect.stringContaining("invalid_grant") });
    const db = await getDb();
    const [conn] = await db.select().from(googleConnections).where(eq(googleConnections.id, connection.id));
    expect(conn!.status).toBe("error");
    const [row] = await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id));
    expect(row!.syncStatus).toBe("failed");
  });
});

describe("Graph change notifications", () => {
  it("a subscription is opened through the validation handshake; notifications need its clientState; lifecycle events renew, reopen or resync", async () => {
    const fake = fakeMicrosoft();
    const { link, mcal, actor } = await linkedOutlookCalendar(fake);
    const sub = fake.liveSubscriptionOf(mcal)!;
    expect(sub).toBeTruthy();
    expect(fake.validations.filter((v) => v.url === sub.notificationUrl).every((v) => v.ok)).toBe(true);
    const db = await getDb();
    const stored = async () => (await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)))[0]!;
    expect(await stored()).toMatchObject({ channelId: sub.id, channelResourceId: `/me/calendars/${mcal}/events` });
    expect((await stored()).channelTokenHash).not.toBe(sub.clientState);
    await syncLink(link.id); // first sync done: next due in 5 minutes
    await db.update(googleCalendarLinks).set({ nextSyncAt: new Date(Date.now() + 3600_000) }).where(eq(googleCalendarLinks.id, link.id));

    const forged = await fake.notifyChange(mcal, { clientState: "guessed" });
    expect(forged.status).toBe(401);
    expect((await stored()).nextSyncAt.getTime()).toBeGreaterThan(Date.now() + 60_000);

    const real = await fake.notifyChange(mcal);
    expect(real).toMatchObject({ status: 202, body: { accepted: 1, scheduled: 1 } });
    expect((await stored()).nextSyncAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

    // Renewal before expiry: PATCH of the same subscription, a later expiry stored.
    await db.update(googleCalendarLinks).set({ channelExpiresAt: new Date(Date.now() + 3600_000) }).where(eq(googleCalendarLinks.id, link.id));
    expect(await renewSubscription(link.id)).toMatchObject({ result: "renewed" });
    expect((await stored()).channelExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 2 * 86_400_000);
    expect(fake.requests.some((r) => r.method === "PATCH" && r.path === `/v1.0/subscriptions/${sub.id}`)).toBe(true);

    expect((await fake.notifyLifecycle(mcal, "reauthorizationRequired")).status).toBe(202);
    expect((await fake.notifyLifecycle(mcal, "missed")).body).toMatchObject({ accepted: 1, scheduled: 1 });

    // Graph removed the subscription: a new one is opened (validated again) and stored.
    expect((await fake.notifyLifecycle(mcal, "subscriptionRemoved")).status).toBe(202);
    const reopened = fake.liveSubscriptionOf(mcal)!;
    expect(reopened.id).not.toBe(sub.id);
    expect((await stored()).channelId).toBe(reopened.id);

    // Unlinking deletes the subscription.
    await unlinkMicrosoftCalendar(actor, link.id);
    expect(fake.liveSubscriptionOf(mcal)).toBeUndefined();
  });

  it("answers Graph's validation request with the token as text/plain", async () => {
    const { handleGraphNotificationRequest } = await import("./notifications");
    const res = await handleGraphNotificationRequest(new Request("http://localhost/api/microsoft/notifications?validationToken=Validation%3A%20abc%20123", { method: "POST" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("Validation: abc 123");
    const bad = await handleGraphNotificationRequest(new Request("http://localhost/api/microsoft/notifications", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ nope: 1 }) }));
    expect(bad.status).toBe(400);
  });
});

describe("exporting committed events to Outlook", () => {
  async function commitOne(setup: Awaited<ReturnType<typeof linkedOutlookCalendar>>, start: string, end: string) {
    const { key } = await newKey(setup.workspace.id);
    const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: start, end_time: end, hold_ttl_seconds: 60, metadata: { title: "Deploy window" } } });
    expect(hold.status).toBe(201);
    const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
    expect(committed.status).toBe(200);
    return { key, holdId: hold.json.id as string, eventId: committed.json.event_ids[0] as string };
  }
  const exportOf = async (eventId: string) => {
    const db = await getDb();
    return (await db.select().from(googleEventExports).where(eq(googleEventExports.calendarEventId, eventId)))[0]!;
  };

  it("creates the event once, tagged with the hold id (even when the answer is lost); it is not imported back; cancel removes it", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    const { key, holdId, eventId } = await commitOne(setup, T(8, 10), T(8, 11));
    fake.dropNextCreateResponse();
    await runDueMicrosoftExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "pending", attempts: 1 });
    const db = await getDb();
    await db.update(googleEventExports).set({ nextAttemptAt: new Date(0) }).where(eq(googleEventExports.calendarEventId, eventId));
    await Promise.all([runDueMicrosoftExports(), runDueMicrosoftExports()]);
    const done = await exportOf(eventId);
    expect(done).toMatchObject({ status: "exported" });
    const live = fake.liveEvents(setup.mcal);
    expect(live).toHaveLength(1);
    expect(done.googleEventId).toBe(live[0]!.id);
    expect(live[0]!.singleValueExtendedProperties).toEqual(expect.arrayContaining([{ id: HOLD_PROPERTY_ID, value: holdId }, { id: EVENT_PROPERTY_ID, value: eventId }]));
    expect(live[0]).toMatchObject({ subject: "Deploy window", showAs: "busy" });

    // Our own export comes back in the next import and is not outside busy time.
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", upserted: 0 });
    expect(await busyOf(setup.calendar.id)).toEqual([]);

    expect((await api(`/api/v1/events/${eventId}`, { key, method: "DELETE" })).status).toBe(200);
    await runDueMicrosoftExports();
    expect(await exportOf(eventId)).toMatchObject({ status: "deleted" });
    expect(fake.liveEvents(setup.mcal)).toEqual([]);
    const actions = (await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, setup.workspace.id), eq(auditEntries.resourceId, eventId)))).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["microsoft.event_exported", "microsoft.event_removed"]));
  });

  it("a hold whose time became busy in Outlook after it was granted cannot be committed", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    await syncLink(setup.link.id);
    const { key } = await newKey(setup.workspace.id);
    const hold = await api(`/api/v1/calendars/${setup.calendar.id}/holds`, { key, body: { start_time: T(9, 10), end_time: T(9, 11), hold_ttl_seconds: 120 } });
    expect(hold.status).toBe(201);
    fake.addEvent(setup.mcal, { id: "late1", start: utc(at(9, 10, 30)), end: utc(at(9, 11, 30)), showAs: "tentative" });
    expect(await syncLink(setup.link.id)).toMatchObject({ status: "ok", upserted: 1 });
    const committed = await api(`/api/v1/holds/${hold.json.id}/commit`, { key, method: "POST" });
    expect(committed.status).toBe(409);
    expect(committed.json.detail).toContain("Outlook");
    expect(committed.json.conflicts).toEqual([expect.objectContaining({ type: "external_busy", source: "microsoft" })]);
  });

  it("disconnecting unlinks, deletes subscriptions, forgets the token and says Microsoft could not revoke it", async () => {
    const fake = fakeMicrosoft();
    const setup = await linkedOutlookCalendar(fake);
    const result = await disconnectMicrosoft(setup.actor, setup.connection.id);
    expect(result).toMatchObject({ revokedAtProvider: false, revokeError: expect.stringContaining("myapps.microsoft.com") });
    expect(result.connection).toMatchObject({ status: "revoked", refreshTokenSealed: null });
    expect(fake.liveSubscriptionOf(setup.mcal)).toBeUndefined();
    const db = await getDb();
    expect(await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.connectionId, setup.connection.id))).toEqual([]);
  });
});
