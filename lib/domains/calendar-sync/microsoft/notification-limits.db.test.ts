import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { googleCalendarLinks } from "../../../../db/schema";
import { linkedOutlookCalendar, withFakeMicrosoft } from "../../../../test/helpers/microsoft";
import { acceptGraphNotifications, handleGraphNotificationRequest, linksBySubscription, NOTIFICATION_LIMITS } from "./notifications";

const fakeMicrosoft = withFakeMicrosoft({ push: true });
const URL_ = "http://localhost/api/microsoft/notifications";
const post = (body: BodyInit, headers: Record<string, string> = { "content-type": "application/json" }) =>
  handleGraphNotificationRequest(new Request(URL_, { method: "POST", headers, body, duplex: "half" } as RequestInit));

/** Counts the lookups (and the ids each asked for) while using the real one. */
function countingLookup() {
  const calls: number[] = [];
  return { calls, lookup: async (ids: string[]) => (calls.push(ids.length), linksBySubscription(ids)) };
}

describe("Graph change notifications are bounded per unauthenticated request", () => {
  it("refuses a huge body with 413, by its Content-Length or while streaming, before any work", async () => {
    const huge = JSON.stringify({ value: Array.from({ length: 40_000 }, (_, i) => ({ subscriptionId: `sub-${i}`, clientState: "x".repeat(100) })) });
    expect(huge.length).toBeGreaterThan(NOTIFICATION_LIMITS.bodyBytes * 10);
    const declared = await post(huge, { "content-type": "application/json", "content-length": String(Buffer.byteLength(huge)) });
    expect(declared.status).toBe(413);
    expect((await declared.json()).code).toBe("payload_too_large");
    const chunks = new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(huge);
        for (let i = 0; i < bytes.length; i += 64_000) c.enqueue(bytes.slice(i, i + 64_000));
        c.close();
      },
    });
    expect((await post(chunks)).status).toBe(413);
    expect((await handleGraphNotificationRequest(new Request(`${URL_}?validationToken=${"v".repeat(5000)}`, { method: "POST" }))).status).toBe(400);
  });

  it("thousands of notifications for unknown subscriptions: 400 beyond the distinct-subscription bound without a lookup, else one bounded lookup and 401", async () => {
    const spread = { value: Array.from({ length: 1000 }, (_, i) => ({ subscriptionId: `unknown-${i}`, clientState: "guess" })) };
    const tooMany = countingLookup();
    await expect(acceptGraphNotifications(spread, tooMany.lookup)).rejects.toMatchObject({ code: "invalid_request" });
    expect(tooMany.calls).toEqual([]);
    expect((await post(JSON.stringify(spread))).status).toBe(400);
    expect((await post(JSON.stringify({ value: Array.from({ length: 1001 }, () => ({ subscriptionId: "x" })) }))).status).toBe(400);

    const repeated = { value: Array.from({ length: 1000 }, (_, i) => ({ subscriptionId: `unknown-${i % NOTIFICATION_LIMITS.subscriptions}`, clientState: "guess" })) };
    const once = countingLookup();
    await expect(acceptGraphNotifications(repeated, once.lookup)).rejects.toMatchObject({ code: "unauthorized" });
    expect(once.calls).toEqual([NOTIFICATION_LIMITS.subscriptions]);
    expect((await post(JSON.stringify(repeated))).status).toBe(401);
  });

  it("a real subscription's thousand notifications, among forged ones, are one lookup and one sync of its link; a wrong clientState changes nothing", async () => {
    const fake = fakeMicrosoft();
    const { link, mcal } = await linkedOutlookCalendar(fake);
    const sub = fake.liveSubscriptionOf(mcal)!;
    const db = await getDb();
    const later = new Date(Date.now() + 3600_000);
    await db.update(googleCalendarLinks).set({ nextSyncAt: later }).where(eq(googleCalendarLinks.id, link.id));
    const nextSync = async () => (await db.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id)))[0]!.nextSyncAt.getTime();

    const forged = { value: Array.from({ length: 1000 }, () => ({ subscriptionId: sub.id, clientState: "guessed", changeType: "updated" })) };
    expect((await post(JSON.stringify(forged))).status).toBe(401);
    expect(await nextSync()).toBe(later.getTime());

    const mixed = {
      value: Array.from({ length: 1000 }, (_, i) =>
        i % 2 ? { subscriptionId: sub.id, clientState: sub.clientState, changeType: "updated" } : { subscriptionId: `unknown-${(i / 2) % 50}`, clientState: "guess" },
      ),
    };
    const counted = countingLookup();
    expect(await acceptGraphNotifications(mixed, counted.lookup)).toEqual({ accepted: 500, refused: 500, scheduled: 1 });
    expect(counted.calls).toEqual([51]);
    expect(await nextSync()).toBeLessThanOrEqual(Date.now() + 1000);
  });
});
