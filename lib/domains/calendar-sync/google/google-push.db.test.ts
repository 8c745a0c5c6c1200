// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { externalBusyIntervals, googleCalendarLinks } from "../../../../db/schema";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { syncDueLinks, syncLink } from "./sync-calendar";
import { renewChannels } from "./channels";
import { unlinkCalendar } from "./links";
import { onUtcDay, utcMidnight } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle({ GOOGLE_PUSH_BASE_URL: "https://agentdraft.example.test" });
const { api } = serveApiForTests();

const T = onUtcDay(30);

async function linkRow(id: string) {
  const db = await getDb();
  return (await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, id)))[0]!;
}

const notify = (headers: Record<string, string>) => api("/api/google/notifications", { method: "POST", headers });

describe("push notifications", () => {
  it("linking opens a channel at the public https address; only its own token gets a notification accepted", async () => {
    const fake = fakeGoogle();
    const { link, gcal, calendar, workspace } = await linkedCalendar(fake);
    const row = await linkRow(link.id);
    const channel = fake.channels.get(row.channelId!)!;
    expect(channel).toMatchObject({ address: "https://agentdraft.example.test/api/google/notifications", calendarId: gcal, stopped: false });
    expect(row.channelTokenHash).not.toBe(channel.token);
    await syncLink(link.id);
    const db = await getDb();
    const farAhead = utcMidnight(365 * 70); // no sync falls due in this test
    await db.update(googleCalendarLinks).set({ nextSyncAt: farAhead }).where(eq(googleCalendarLinks.id, link.id));

    // Google says hello when a channel opens: acknowledged, nothing scheduled.
    const hello = await notify(fake.notificationHeaders(row.channelId!, "sync", 1));
    expect(hello.status).toBe(200);
    expect(hello.json).toMatchObject({ sync_scheduled: false });

    // Wrong token, missing token, wrong resource, unknown channel: refused, nothing changes.
    const good = fake.notificationHeaders(row.channelId!, "exists");
    for (const bad of [
      { ...good, "x-goog-channel-token": "not-the-token" },
      Object.fromEntries(Object.entries(good).filter(([k]) => k !== "x-goog-channel-token")),
      { ...good, "x-goog-resource-id": "another-resource" },
      { ...good, "x-goog-channel-id": "00000000-0000-4000-8000-000000000000" },
    ]) {
      const refused = await notify(bad);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await notify({ ...good, "x-goog-resource-state": "weird" })).status).toBe(400);
    expect((await notify({})).status).toBe(400);
    expect((await linkRow(link.id)).nextSyncAt.toISOString()).toBe(farAhead.toISOString());

    // The real thing: the link is due now, and the job imports the change.
    fake.addEvent(gcal, { id: "pushed1", start: T(9), end: T(10) });
    const accepted = await notify(good);
    expect(accepted.status).toBe(200);
    expect(accepted.json).toMatchObject({ sync_scheduled: true });
    expect((await linkRow(link.id)).nextSyncAt.getTime()).toBeLessThanOrEqual(Date.now());
    await syncDueLinks(1000, { workspaceId: workspace.id }); // this workspace's: other files' due links (one database) belong to other fakes
    const busy = await db.select().from(externalBusyIntervals).where(eq(externalBusyIntervals.calendarId, calendar.id));
    expect(busy.map((b) => b.googleEventId)).toEqual(["pushed1"]);
  });

  it("renews a channel before it expires and stops the old one; unlinking stops the channel", async () => {
    const fake = fakeGoogle();
    const { link, actor, calendar, gcal } = await linkedCalendar(fake);
    fake.addEvent(gcal, { id: "x1", start: T(11), end: T(12) });
    await syncLink(link.id);
    const old = await linkRow(link.id);
    const db = await getDb();
    await db.update(googleCalendarLinks).set({ channelExpiresAt: new Date(Date.now() + 60_000) }).where(eq(googleCalendarLinks.id, link.id));

    expect(await renewChannels()).toBeGreaterThanOrEqual(1);
    const renewed = await linkRow(link.id);
    expect(renewed.channelId).not.toBe(old.channelId);
    expect(renewed.channelExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 6 * 86400_000);
    expect(fake.channels.get(old.channelId!)!.stopped).toBe(true);
    // The old channel's notifications are no longer accepted.
    expect((await notify(fake.notificationHeaders(old.channelId!, "exists"))).status).toBe(401);
    expect((await notify(fake.notificationHeaders(renewed.channelId!, "exists"))).status).toBe(200);
    // Nothing else due: a second run renews nothing for this link.
    await renewChannels();
    expect((await linkRow(link.id)).channelId).toBe(renewed.channelId);

    await unlinkCalendar(actor, link.id);
    expect(fake.channels.get(renewed.channelId!)!.stopped).toBe(true);
    expect(await db.select().from(externalBusyIntervals).where(eq(externalBusyIntervals.calendarId, calendar.id))).toEqual([]);
    expect((await notify(fake.notificationHeaders(renewed.channelId!, "exists"))).status).toBe(401);
  });
});
