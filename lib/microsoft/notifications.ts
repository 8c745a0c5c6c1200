import { randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable } from "../../db/transaction";
import { googleCalendarLinks, googleConnections, type GoogleCalendarLinkRow } from "../../db/schema";
import { AppError } from "../errors";
import { problemResponse } from "../api/problem";
import { newRequestId } from "../api/request-ids";
import { parseJsonBody, readBody } from "../api/read-body";
import { channelTokenHash, watchLink } from "../calendar-sync/watch";
import { scheduleSync } from "../calendar-sync/sync-link";
import { scheduleWork } from "../jobs/schedule";
import { graph, MicrosoftError } from "./graph";
import { microsoftProvider } from "./provider";
import { MICROSOFT_RENEW_KIND, SUBSCRIPTION_RENEW_BEFORE_SECONDS } from "./work-sources";

const SUBSCRIPTION_MINUTES = 4200;

const notification = z.object({
  subscriptionId: z.string().min(1),
  clientState: z.string().optional().nullable(),
  changeType: z.string().optional(),
  lifecycleEvent: z.enum(["reauthorizationRequired", "subscriptionRemoved", "missed"]).optional(),
  resource: z.string().optional(),
});
export const graphNotificationBody = z.object({ value: z.array(notification).min(1).max(1000) });

type Handled = { accepted: number; refused: number; scheduled: number };

/** The link whose stored subscription this is, when the clientState matches (sha256 compared in constant time). */
async function verifiedLink(subscriptionId: string, clientState: string | null | undefined): Promise<GoogleCalendarLinkRow | null> {
  const q = await queryable();
  const [row] = await q
    .select({ link: googleCalendarLinks })
    .from(googleCalendarLinks)
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(and(eq(googleCalendarLinks.channelId, subscriptionId), isNotNull(googleCalendarLinks.channelTokenHash), eq(googleConnections.provider, "microsoft")));
  const expected = row?.link.channelTokenHash ? Buffer.from(row.link.channelTokenHash, "hex") : randomBytes(32);
  const ok = timingSafeEqual(expected, channelTokenHash(clientState ?? ""));
  return row && ok ? row.link : null;
}

async function syncNow(link: GoogleCalendarLinkRow): Promise<void> {
  const q = await queryable();
  await q.update(googleCalendarLinks).set({ nextSyncAt: sql`now()` }).where(eq(googleCalendarLinks.id, link.id));
  scheduleSync(microsoftProvider, link);
}

/**
 * Change and lifecycle notifications from Graph (POST /api/microsoft/notifications, after the
 * validation handshake the route answers itself). Each must name a subscription we hold, with
 * its clientState; others are refused and change nothing. A change makes the link due for an
 * incremental sync now. Lifecycle: `reauthorizationRequired` renews the subscription now,
 * `subscriptionRemoved` opens a new one and resyncs, `missed` resyncs (notifications were lost).
 */
export async function acceptGraphNotifications(body: unknown): Promise<Handled> {
  const parsed = graphNotificationBody.safeParse(body);
  if (!parsed.success) throw new AppError("invalid_request", "Expected a Graph notification collection: {value: [{subscriptionId, clientState, ...}]}.");
  const out: Handled = { accepted: 0, refused: 0, scheduled: 0 };
  const seen = new Set<string>();
  for (const n of parsed.data.value) {
    const link = await verifiedLink(n.subscriptionId, n.clientState);
    if (!link) {
      out.refused++;
      continue;
    }
    out.accepted++;
    if (n.lifecycleEvent === "reauthorizationRequired") {
      scheduleWork(MICROSOFT_RENEW_KIND, [{ id: link.id, workspaceId: link.workspaceId, key: link.connectionId, dueAt: new Date() }]);
      continue;
    }
    if (n.lifecycleEvent === "subscriptionRemoved") {
      const q = await queryable();
      // Forget the dead subscription: the renewal opens a new one.
      await q.update(googleCalendarLinks).set({ channelId: null, channelResourceId: null, channelTokenHash: null, channelExpiresAt: null }).where(eq(googleCalendarLinks.id, link.id));
      await renewSubscription(link.id);
    }
    if (seen.has(link.id)) continue;
    seen.add(link.id);
    await syncNow(link);
    out.scheduled++;
  }
  if (out.accepted === 0) throw new AppError("unauthorized", "Unknown subscription, or the clientState does not match.");
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
    return new Response(validationToken, { status: 200, headers: { "content-type": "text/plain; charset=utf-8", "x-request-id": requestId } });
  }
  try {
    const result = await acceptGraphNotifications(parseJsonBody(await readBody(req, 1_000_000), req.headers.get("content-type")));
    return Response.json({ received: true, ...result }, { status: 202, headers: { "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
