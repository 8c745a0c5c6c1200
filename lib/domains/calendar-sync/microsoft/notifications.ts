import { randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable } from "../../../../db/transaction";
import { googleCalendarLinks, googleConnections, type GoogleCalendarLinkRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { problemResponse } from "../../../platform/api/problem";
import { newRequestId } from "../../../platform/api/request-ids";
import { parseJsonBody, readBody } from "../../../platform/api/read-body";
import { channelTokenHash, watchLink } from "../watch";
import { scheduleSync } from "../sync-link";
import { scheduleWork } from "../../../platform/jobs/schedule";
import { graph, MicrosoftError } from "./graph";
import { microsoftProvider } from "./provider";
import { MICROSOFT_RENEW_KIND, SUBSCRIPTION_RENEW_BEFORE_SECONDS } from "./work-sources";

const SUBSCRIPTION_MINUTES = 4200;

/** What one unauthenticated POST may cost, fixed before any work (README "Fixed limits"). */
export const NOTIFICATION_LIMITS = {
  /** Bytes of body read at most; Graph's batches of change notifications are far smaller. */
  bodyBytes: 200_000,
  /** Notifications in one request. */
  notifications: 1000,
  /** Distinct subscription ids in one request: looked up together, in one bounded query. */
  subscriptions: 100,
  /** Graph's validation token, echoed back. */
  validationTokenChars: 1024,
} as const;

const notification = z.object({
  subscriptionId: z.string().min(1).max(200),
  clientState: z.string().max(255).optional().nullable(),
  changeType: z.string().max(100).optional(),
  lifecycleEvent: z.enum(["reauthorizationRequired", "subscriptionRemoved", "missed"]).optional(),
  resource: z.string().max(2000).optional(),
});
export const graphNotificationBody = z.object({ value: z.array(notification).min(1).max(NOTIFICATION_LIMITS.notifications) });

type Handled = { accepted: number; refused: number; scheduled: number };

/** The Microsoft links holding these subscriptions, in one query (the caller bounds the ids). */
export async function linksBySubscription(subscriptionIds: string[]): Promise<GoogleCalendarLinkRow[]> {
  const q = await queryable();
  const rows = await q
    .select({ link: googleCalendarLinks })
    .from(googleCalendarLinks)
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(and(inArray(googleCalendarLinks.channelId, subscriptionIds), isNotNull(googleCalendarLinks.channelTokenHash), eq(googleConnections.provider, "microsoft")));
  return rows.map((r) => r.link);
}

/** Whether the clientState is the link's (sha256 compared in constant time; an unknown subscription compares against noise). */
function clientStateMatches(link: GoogleCalendarLinkRow | undefined, clientState: string | null | undefined): link is GoogleCalendarLinkRow {
  const expected = link?.channelTokenHash ? Buffer.from(link.channelTokenHash, "hex") : randomBytes(32);
  return timingSafeEqual(expected, channelTokenHash(clientState ?? "")) && link !== undefined;
}

/**
 * Change and lifecycle notifications from Graph (POST /api/microsoft/notifications, after the
 * validation handshake the route answers itself). The request is unauthenticated, so its cost is
 * bounded before any work: a bounded body, at most NOTIFICATION_LIMITS.subscriptions distinct
 * subscriptions (400 beyond), looked up in one query; each notification must name a subscription
 * we hold, with its clientState, else it is refused and changes nothing (401 when none is
 * accepted). The work is per link, not per notification: a change makes the link due for an
 * incremental sync now (one update for all of them); `reauthorizationRequired` renews the
 * subscription now, `subscriptionRemoved` opens a new one and resyncs, `missed` resyncs.
 */
export async function acceptGraphNotifications(body: unknown, lookup: (ids: string[]) => Promise<GoogleCalendarLinkRow[]> = linksBySubscription): Promise<Handled> {
  const parsed = graphNotificationBody.safeParse(body);
  if (!parsed.success) {
    throw new AppError("invalid_request", `Expected a Graph notification collection: {value: [{subscriptionId, clientState, ...}]}, 1 to ${NOTIFICATION_LIMITS.notifications} of them.`);
  }
  const ids = [...new Set(parsed.data.value.map((n) => n.subscriptionId))];
  if (ids.length > NOTIFICATION_LIMITS.subscriptions) {
    throw new AppError("invalid_request", `At most ${NOTIFICATION_LIMITS.subscriptions} distinct subscriptions in one request (got ${ids.length}).`, {
      limit: NOTIFICATION_LIMITS.subscriptions,
    });
  }
  const bySubscription = new Map((await lookup(ids)).map((l) => [l.channelId!, l]));
  const out: Handled = { accepted: 0, refused: 0, scheduled: 0 };
  const due = new Map<string, { link: GoogleCalendarLinkRow; events: Set<string> }>();
  for (const n of parsed.data.value) {
    const link = bySubscription.get(n.subscriptionId);
    if (!clientStateMatches(link, n.clientState)) {
      out.refused++;
      continue;
    }
    out.accepted++;
    const entry = due.get(link.id) ?? { link, events: new Set<string>() };
    entry.events.add(n.lifecycleEvent ?? "change");
    due.set(link.id, entry);
  }
  if (out.accepted === 0) throw new AppError("unauthorized", "Unknown subscription, or the clientState does not match.");
  const renewNow = [...due.values()].filter((d) => d.events.has("reauthorizationRequired")).map((d) => d.link);
  scheduleWork(MICROSOFT_RENEW_KIND, renewNow.map((link) => ({ id: link.id, workspaceId: link.workspaceId, key: link.connectionId, dueAt: new Date() })));
  const q = await queryable();
  for (const { link, events } of due.values()) {
    if (!events.has("subscriptionRemoved")) continue;
    // Forget the dead subscription: the renewal opens a new one.
    await q.update(googleCalendarLinks).set({ channelId: null, channelResourceId: null, channelTokenHash: null, channelExpiresAt: null }).where(eq(googleCalendarLinks.id, link.id));
    await renewSubscription(link.id);
  }
  const toSync = [...due.values()].filter((d) => [...d.events].some((e) => e !== "reauthorizationRequired")).map((d) => d.link);
  if (toSync.length) {
    await q.update(googleCalendarLinks).set({ nextSyncAt: sql`now()` }).where(inArray(googleCalendarLinks.id, toSync.map((l) => l.id)));
    for (const link of toSync) scheduleSync(microsoftProvider, link);
  }
  out.scheduled = toSync.length;
  return out;
}

/**
 * One unit of work: renews one link's subscription before it expires (PATCH its
 * expirationDateTime), or opens a new one when Graph no longer knows it (or it has none).
 * Returns when it is due next.
 */
export async function renewSubscription(linkId: string): Promise<{ result: string; retryAt?: Date | null }> {
  const q = await queryable();
  const [found] = await q
    .select({ link: googleCalendarLinks, connection: googleConnections })
    .from(googleCalendarLinks)
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(and(eq(googleCalendarLinks.id, linkId), eq(googleConnections.provider, "microsoft")));
  if (!found || found.connection.status !== "active") return { result: "nothing to do" };
  const { link, connection } = found;
  const dueAgain = (expiresAt: Date) => new Date(expiresAt.getTime() - SUBSCRIPTION_RENEW_BEFORE_SECONDS * 1000);
  try {
    if (link.channelId) {
      try {
        const expiresAt = new Date(Date.now() + SUBSCRIPTION_MINUTES * 60_000);
        const sub = await graph<{ expirationDateTime?: string }>(connection, `/subscriptions/${encodeURIComponent(link.channelId)}`, {
          method: "PATCH",
          body: { expirationDateTime: expiresAt.toISOString() },
        });
        const until = sub?.expirationDateTime ? new Date(sub.expirationDateTime) : expiresAt;
        await q.update(googleCalendarLinks).set({ channelExpiresAt: until, updatedAt: sql`now()` }).where(and(eq(googleCalendarLinks.id, link.id), eq(googleCalendarLinks.channelId, link.channelId)));
        return { result: "renewed", retryAt: dueAgain(until) };
      } catch (err) {
        if (!(err instanceof MicrosoftError && err.status === 404)) throw err;
        // Graph dropped it: open a new one below.
      }
    }
    if (!(await watchLink(microsoftProvider, connection, { ...link, channelId: null }))) return { result: "no subscription (no public address)" };
    const [now] = await q.select({ expiresAt: googleCalendarLinks.channelExpiresAt }).from(googleCalendarLinks).where(eq(googleCalendarLinks.id, link.id));
    return { result: "opened", retryAt: now?.expiresAt ? dueAgain(now.expiresAt) : null };
  } catch (err) {
    console.error(`[microsoft] could not renew the subscription of ${link.id}: ${microsoftProvider.describe(err)}`);
    return { result: "failed", retryAt: new Date(Date.now() + 10 * 60_000) };
  }
}

/**
 * The whole of POST /api/microsoft/notifications (the route only gates it): the validation
 * handshake — Graph checks the URL by posting ?validationToken=…, to be echoed as text/plain
 * with 200 within 10 s — and otherwise a notification collection, answered 202 (the sync runs
 * as its own job), or a problem response.
 */
export async function handleGraphNotificationRequest(req: Request): Promise<Response> {
  const requestId = newRequestId();
  const validationToken = new URL(req.url).searchParams.get("validationToken");
  if (validationToken !== null) {
    if (validationToken.length > NOTIFICATION_LIMITS.validationTokenChars) {
      return problemResponse(new AppError("invalid_request", "validationToken is too long."), requestId, { "x-request-id": requestId });
    }
    return new Response(validationToken, { status: 200, headers: { "content-type": "text/plain; charset=utf-8", "x-request-id": requestId } });
  }
  try {
    const result = await acceptGraphNotifications(parseJsonBody(await readBody(req, NOTIFICATION_LIMITS.bodyBytes), req.headers.get("content-type")));
    return Response.json({ received: true, ...result }, { status: 202, headers: { "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
