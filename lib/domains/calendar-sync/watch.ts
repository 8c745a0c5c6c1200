import { createHash } from "node:crypto";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { googleCalendarLinks, googleConnections, type GoogleCalendarLinkRow, type GoogleConnectionRow } from "../../../db/schema";
import type { CalendarProvider } from "./provider";
import { capturesOutbound } from "../../platform/config/preview";

/** What is stored of a subscription's secret (the channel token, Graph's clientState): its sha256, compared in constant time. */
export const channelTokenHash = (token: string) => createHash("sha256").update(token).digest();

/**
 * Opens a change subscription for a link when this deployment can receive one, stores it, and
 * stops the link's previous one. Returns false when push is not available here (the periodic
 * resync covers the link) or the link went away meanwhile (the new one is closed again).
 */
export async function watchLink(provider: CalendarProvider, connection: GoogleConnectionRow, link: GoogleCalendarLinkRow): Promise<boolean> {
  // A preview opens no subscription at the provider: the periodic resync covers its links.
  if (capturesOutbound("calendar")) return false;
  const channel = await provider.watch(connection, link);
  if (!channel) return false;
  const q = await queryable();
  const [updated] = await q
    .update(googleCalendarLinks)
    .set({
      channelId: channel.id,
      channelResourceId: channel.resourceId,
      channelTokenHash: channelTokenHash(channel.token).toString("hex"),
      channelExpiresAt: channel.expiresAt,
      updatedAt: sql`now()`,
    })
    .where(eq(googleCalendarLinks.id, link.id))
    .returning();
  if (!updated) {
    // Unlinked meanwhile: close the channel just opened.
    await provider.stopWatch(connection, { ...link, channelId: channel.id, channelResourceId: channel.resourceId }).catch(() => undefined);
    return false;
  }
  if (link.channelId && link.channelId !== channel.id) await provider.stopWatch(connection, link).catch(() => undefined);
  return true;
}

/**
 * Stops a link's subscription (nothing to do for a revoked connection: its grant is gone). A
 * preview never does: a channel it copied from production is production's.
 */
export async function stopWatch(provider: CalendarProvider, connection: GoogleConnectionRow, link: Pick<GoogleCalendarLinkRow, "channelId" | "channelResourceId" | "googleCalendarId">): Promise<void> {
  if (!link.channelId || connection.status === "revoked" || capturesOutbound("calendar")) return;
  await provider.stopWatch(connection, link);
}

/**
 * Opens subscriptions for links without one and renews those expiring within `renewBeforeMs`.
 * Idempotent; a link renewed twice at once ends with one live subscription stored and the other
 * stopped or left to expire (notifications name the stored one only).
 */
export async function renewWatches(provider: CalendarProvider, renewBeforeMs: number, onlyLinkId?: string): Promise<number> {
  const q = await queryable();
  const due = await q
    .select({ link: googleCalendarLinks, connection: googleConnections })
    .from(googleCalendarLinks)
    .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
    .where(
      and(
        eq(googleConnections.status, "active"),
        eq(googleConnections.provider, provider.id),
        onlyLinkId ? eq(googleCalendarLinks.id, onlyLinkId) : undefined,
        or(isNull(googleCalendarLinks.channelId), lt(googleCalendarLinks.channelExpiresAt, new Date(Date.now() + renewBeforeMs))),
      ),
    )
    .limit(50);
  let renewed = 0;
  for (const { link, connection } of due) {
    try {
      if (await watchLink(provider, connection, link)) renewed++;
    } catch (err) {
      console.error(`[${provider.id}] could not open a change subscription for ${link.id}: ${provider.describe(err)}`);
    }
  }
  return renewed;
}

/** The provider refused the connection's refresh token: it shows as needing a reconnect. */
export async function markConnectionBroken(provider: CalendarProvider, connectionId: string, message: string): Promise<void> {
  const q = await queryable();
  await q.update(googleConnections).set({ status: "error", lastError: message, updatedAt: sql`now()` }).where(and(eq(googleConnections.id, connectionId), eq(googleConnections.status, "active")));
  provider.forget(connectionId);
}
