import { env } from "./env";

/** Whether the app's cookies are Secure (and Auth.js's `__Secure-` prefixed): in production, unless served over plain http. */
export function secureCookies(): boolean {
  const e = env();
  return e.NODE_ENV === "production" && !e.AUTH_URL?.startsWith("http:");
}

/** The names Auth.js gives its database session cookie: Secure, then plain. */
export const SESSION_COOKIE_NAMES = ["__Secure-authjs.session-token", "authjs.session-token"] as const;

/** The session cookie's name as this deployment sets it. */
export const sessionCookieName = () => SESSION_COOKIE_NAMES[secureCookies() ? 0 : 1];

/** How long the app keeps a choice in a cookie (the active workspace). */
export const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** Names the workspace a person with several memberships is looking at (the web app's, and set by an SSO sign-in). Not a grant: it only selects among their own memberships. */
export const WORKSPACE_COOKIE = "agentdraft-workspace";
