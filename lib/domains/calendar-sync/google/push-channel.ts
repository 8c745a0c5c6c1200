import { randomBytes, randomUUID } from "node:crypto";
import type { GoogleCalendarLinkRow, GoogleConnectionRow } from "../../../../db/schema";
import type { WatchChannel } from "../provider";
import { pushNotificationAddress } from "./config";
import { calendarClient } from "./oauth-client";
import { callGoogle, googleFailure } from "./quota";
import { authorizedClient } from "./authorized-client";

const CHANNEL_TTL_SECONDS = 7 * 24 * 3600;

/** events.watch for a link, when this deployment has a public https address (null otherwise). */
export async function openChannel(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow): Promise<WatchChannel | null> {
  const address = pushNotificationAddress();
  if (!address) return null;
  const id = randomUUID();
  const token = randomBytes(32).toString("base64url");
  const api = calendarClient(authorizedClient(connection));
  const res = await callGoogle(connection.id, () =>
    api.events.watch({
      calendarId: link.googleCalendarId,
      requestBody: { id, type: "web_hook", address, token, params: { ttl: String(CHANNEL_TTL_SECONDS) } },
    }),
  );
  return {
    id,
    resourceId: res.data.resourceId ?? null,
    token,
    expiresAt: res.data.expiration ? new Date(Number(res.data.expiration)) : new Date(Date.now() + CHANNEL_TTL_SECONDS * 1000),
  };
}

/** channels.stop for a link's channel; a channel Google no longer knows is already stopped. */
export async function stopChannel(connection: GoogleConnectionRow, link: Pick<GoogleCalendarLinkRow, "channelId" | "channelResourceId">): Promise<void> {
  if (!link.channelId || !link.channelResourceId || connection.status === "revoked") return;
  const api = calendarClient(authorizedClient(connection));
  try {
    await callGoogle(connection.id, () => api.channels.stop({ requestBody: { id: link.channelId!, resourceId: link.channelResourceId! } }));
  } catch (err) {
    if (googleFailure(err).status !== 404) throw err;
  }
}
