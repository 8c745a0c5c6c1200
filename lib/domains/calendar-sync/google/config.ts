import { env } from "../../../platform/config/env";

/** What AgentDraft asks Google for: read and write events, read the calendar list and free/busy. */
export const GOOGLE_SCOPES = ["https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/calendar.readonly"];

export type GoogleConfig = {
  clientId: string;
  clientSecret: string;
  apiRootUrl: string;
  authUrl: string;
  tokenUrl: string;
  revokeUrl: string;
};

/** The Google OAuth client settings, or null when Google is not configured (the app runs without it). */
export function googleConfig(): GoogleConfig | null {
  const e = env();
  if (!e.GOOGLE_CLIENT_ID || !e.GOOGLE_CLIENT_SECRET) return null;
  return {
    clientId: e.GOOGLE_CLIENT_ID,
    clientSecret: e.GOOGLE_CLIENT_SECRET,
    apiRootUrl: e.GOOGLE_API_ROOT_URL.endsWith("/") ? e.GOOGLE_API_ROOT_URL : `${e.GOOGLE_API_ROOT_URL}/`,
    authUrl: e.GOOGLE_OAUTH_AUTH_URL,
    tokenUrl: e.GOOGLE_OAUTH_TOKEN_URL,
    revokeUrl: e.GOOGLE_OAUTH_REVOKE_URL,
  };
}

/** A half-set Google configuration, said at start-up rather than discovered at the first connect. */
export function googleConfigProblem(): string | null {
  const e = env();
  if (Boolean(e.GOOGLE_CLIENT_ID) !== Boolean(e.GOOGLE_CLIENT_SECRET)) {
    return "Set both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (or neither, to run without Google Calendar sync).";
  }
  if (e.GOOGLE_PUSH_BASE_URL && !e.GOOGLE_PUSH_BASE_URL.startsWith("https://")) {
    return "GOOGLE_PUSH_BASE_URL must be an https:// origin: Google delivers push notifications only over https.";
  }
  return null;
}

/**
 * Where Google should send push notifications, or null when this deployment cannot receive
 * them (no public https origin): then linked calendars rely on the periodic resync alone.
 */
export function pushNotificationAddress(): string | null {
  const e = env();
  const base = e.GOOGLE_PUSH_BASE_URL ?? e.AUTH_URL;
  if (!base?.startsWith("https://")) return null;
  return `${new URL(base).origin}/api/google/notifications`;
}

/** Where Google sends the browser back after consent. */
export const oauthCallbackUrl = (appOrigin: string) => `${appOrigin}/api/google/oauth/callback`;
