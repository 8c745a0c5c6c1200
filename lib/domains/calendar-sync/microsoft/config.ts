import { env } from "../../../platform/config/env";

/**
 * What AgentDraft asks Microsoft for (delegated permissions): read and write the user's
 * calendars, a refresh token (offline_access), who the user is (User.Read), and the mailbox's
 * time zone, in which all-day events are read (MailboxSettings.Read; optional: without it,
 * the event's own zone is used).
 */
export const MICROSOFT_SCOPES = ["offline_access", "User.Read", "Calendars.ReadWrite", "MailboxSettings.Read"];
/** Without these the connection is refused. */
export const REQUIRED_SCOPES = ["Calendars.ReadWrite"];

export type MicrosoftConfig = { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string; graphUrl: string };

/** The app registration's settings, or null when Microsoft is not configured (the app runs without it). */
export function microsoftConfig(): MicrosoftConfig | null {
  const e = env();
  if (!e.MICROSOFT_CLIENT_ID || !e.MICROSOFT_CLIENT_SECRET) return null;
  const authority = `${e.MICROSOFT_AUTHORITY_URL.replace(/\/+$/, "")}/${e.MICROSOFT_TENANT}/oauth2/v2.0`;
  return {
    clientId: e.MICROSOFT_CLIENT_ID,
    clientSecret: e.MICROSOFT_CLIENT_SECRET,
    authorizeUrl: `${authority}/authorize`,
    tokenUrl: `${authority}/token`,
    graphUrl: e.MICROSOFT_GRAPH_URL.replace(/\/+$/, ""),
  };
}

const isLoopback = (url: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);

/** A half-set Microsoft configuration, said at start-up rather than discovered at the first connect. */
export function microsoftConfigProblem(): string | null {
  const e = env();
  if (Boolean(e.MICROSOFT_CLIENT_ID) !== Boolean(e.MICROSOFT_CLIENT_SECRET)) {
    return "Set both MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET (or neither, to run without Microsoft 365 calendar sync).";
  }
  if (e.MICROSOFT_NOTIFICATION_BASE_URL) {
    const url = new URL(e.MICROSOFT_NOTIFICATION_BASE_URL);
    if (url.protocol !== "https:" && !isLoopback(url)) return "MICROSOFT_NOTIFICATION_BASE_URL must be an https:// origin: Microsoft Graph delivers change notifications only over https.";
  }
  return null;
}

/**
 * Where Graph should post change and lifecycle notifications, or null when this deployment
 * cannot receive them: then linked calendars rely on the periodic resync alone. Graph itself
 * refuses anything but https; a loopback origin is accepted for a local fake Graph in tests.
 */
export function notificationAddresses(): { notificationUrl: string; lifecycleNotificationUrl: string } | null {
  const e = env();
  const base = e.MICROSOFT_NOTIFICATION_BASE_URL ?? e.AUTH_URL;
  if (!base) return null;
  const url = new URL(base);
  if (url.protocol !== "https:" && !(e.MICROSOFT_NOTIFICATION_BASE_URL && isLoopback(url))) return null;
  return { notificationUrl: `${url.origin}/api/microsoft/notifications`, lifecycleNotificationUrl: `${url.origin}/api/microsoft/notifications` };
}

/** Where Microsoft sends the browser back after consent (register it as a Web redirect URI). */
export const microsoftCallbackUrl = (appOrigin: string) => `${appOrigin}/api/microsoft/oauth/callback`;
