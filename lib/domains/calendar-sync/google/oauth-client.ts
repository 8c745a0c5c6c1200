import { calendar, type calendar_v3 } from "@googleapis/calendar";
import { OAuth2Client } from "google-auth-library";
import { AppError } from "../../../platform/errors";
import { googleConfig, type GoogleConfig } from "./config";

export function requireGoogleConfig(): GoogleConfig {
  const config = googleConfig();
  if (!config) {
    throw new AppError("service_unavailable", "Google Calendar is not configured: set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET.");
  }
  return config;
}

/** An OAuth 2.0 client for the configured Google project, with its endpoints (overridable for tests and self-hosters). */
export function newOAuthClient(redirectUri?: string): OAuth2Client {
  const c = requireGoogleConfig();
  return new OAuth2Client({
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    redirectUri,
    endpoints: { oauth2AuthBaseUrl: c.authUrl, oauth2TokenUrl: c.tokenUrl, oauth2RevokeUrl: c.revokeUrl },
  });
}

/**
 * The Calendar v3 client acting with `auth`, at the configured root URL. gaxios' own retries
 * are off: retrying (quota backoff, job retries) is decided in quota.ts and by the jobs.
 */
export function calendarClient(auth: OAuth2Client): calendar_v3.Calendar {
  const c = requireGoogleConfig();
  return calendar({ version: "v3", auth, rootUrl: c.apiRootUrl, retry: false, timeout: 20_000 });
}
