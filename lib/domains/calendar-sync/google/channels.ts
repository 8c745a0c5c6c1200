import { randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { queryable } from "../../../../db/transaction";
import { googleCalendarLinks, type GoogleCalendarLinkRow, type GoogleConnectionRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { channelTokenHash, renewWatches, watchLink as watchAnyLink } from "../watch";
import { scheduleSync } from "../schedule-sync";
import { googleConfig, pushNotificationAddress } from "./config";
import { googleProvider } from "./provider";

/** Channels are renewed when they have less than this left (Google lets them live about a week). */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

/**
 * Opens a push channel (events.watch) for a link, when this deployment has a public https
 * address; stops the link's previous channel once the new one is stored. Returns false when
 * push is not available here (the periodic resync covers the link).
 */
export const watchLink = (connection: GoogleConnectionRow, link: GoogleCalendarLinkRow) => watchAnyLink(googleProvider, connection, link);

/**
 * Opens channels for links without one and renews those expiring within a day (before Google
 * ends them). Idempotent; a link renewed twice at once ends with one live channel stored and
 * the other stopped or left to expire (notifications name the stored channel only).
 */
export async function renewChannels(): Promise<number> {
  if (!googleConfig() || !pushNotificationAddress()) return 0;
  return renewWatches(googleProvider, RENEW_BEFORE_MS);
}

export type Notification = { channelId: string | null; token: string | null; resourceId: string | null; resourceState: string | null };

/**
 * A push notification from Google (POST /api/google/notifications). The channel must be one we
 * opened and still hold, and the token and resource id must be the ones it was opened with
 * (token compared in constant time); anything else is refused and changes nothing. `sync` is
 * the channel's hello; `exists`/`not_exists` make the link due for an incremental sync now.
 */
export async function acceptNotification(n: Notification): Promise<{ linkId: string; scheduled: boolean }> {
  if (!n.channelId || !n.resourceState) throw new AppError("invalid_request", "X-Goog-Channel-ID and X-Goog-Resource-State are required.");
  if (!["sync", "exists", "not_exists"].includes(n.resourceState)) throw new AppError("invalid_request", `Unknown X-Goog-Resource-State ${n.resourceState}.`);
  const q = await queryable();
  const [link] = await q
    .select()
    .from(googleCalendarLinks)
    .where(and(eq(googleCalendarLinks.channelId, n.channelId), isNotNull(googleCalendarLinks.channelTokenHash)));
  const expected = link?.channelTokenHash ? Buffer.from(link.channelTokenHash, "hex") : randomBytes(32);
  const tokenOk = timingSafeEqual(expected, channelTokenHash(n.token ?? ""));
  if (!link || !tokenOk || link.channelResourceId !== n.resourceId) {
    throw new AppError("unauthorized", "Unknown channel, or the channel token or resource id does not match.");
  }
  if (n.resourceState === "sync") return { linkId: link.id, scheduled: false };
  await q.update(googleCalendarLinks).set({ nextSyncAt: sql`now()` }).where(eq(googleCalendarLinks.id, link.id));
  scheduleSync(googleProvider, link);
  return { linkId: link.id, scheduled: true };
}
