import { CodeChallengeMethod, type Credentials } from "google-auth-library";
import type { CalendarProvider, ExportOutcome, ImportedEvent, ListedEvent, ListedWindow } from "../provider";
import type { GoogleConnectionRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { open } from "../../../platform/crypto/secret-box";
import { GOOGLE_SCOPES, googleConfig } from "./config";
import { calendarClient, newOAuthClient } from "./oauth-client";
import { callGoogle, googleFailure } from "./quota";
import { authorizedClient, forgetClient, isRevokedGrant } from "./authorized-client";
import { busyInterval, EXPORT_EVENT_PROPERTY, EXPORT_HOLD_PROPERTY, EXPORT_MARK_PROPERTY, EXPORT_MARK_VALUE, remoteVersion } from "./busy-interval";
import { openChannel, stopChannel } from "./push-channel";
import { EXPORT_KIND, SYNC_KIND } from "./work-sources";
import type { calendar_v3 } from "@googleapis/calendar";
import { createHash } from "node:crypto";

/** The deterministic Google id of an event's own copy (as remoteEventIdFor in ../exports, which imports the providers). */
const ownEventId = (calendarEventId: string) => `agentdraft${createHash("sha256").update(calendarEventId).digest("hex").slice(0, 40)}`;

const PAGE_SIZE = 250;

/** The private properties of an exported copy: the event and hold it stands for, and the mark of every copy. */
const exportProperties = (event: { id: string; holdId: string | null }) => ({
  [EXPORT_EVENT_PROPERTY]: event.id,
  [EXPORT_HOLD_PROPERTY]: event.holdId ?? "",
  [EXPORT_MARK_PROPERTY]: EXPORT_MARK_VALUE,
});

/** Every page of an events.list as the drift check reads it: at most `maxEvents`, `complete` false when there were more. */
async function listEvents(connection: GoogleConnectionRow, params: calendar_v3.Params$Resource$Events$List, maxEvents: number): Promise<ListedWindow> {
  const api = calendarClient(authorizedClient(connection));
  const items: ListedEvent[] = [];
  let pageToken: string | undefined;
  for (;;) {
    const res = await callGoogle(connection.id, () => api.events.list({ ...params, maxResults: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) }));
    const timeZone = res.data.timeZone ?? "UTC";
    for (const ev of res.data.items ?? []) {
      if (!ev.id) continue;
      if (items.length >= maxEvents) return { items, complete: false };
      items.push({ id: ev.id, exportTag: ev.extendedProperties?.private?.[EXPORT_EVENT_PROPERTY] ?? null, version: remoteVersion(ev, timeZone) });
    }
    if (!res.data.nextPageToken) return { items, complete: true };
    pageToken = res.data.nextPageToken;
  }
}

/** Google Calendar (Calendar API v3 through @googleapis/calendar, OAuth through google-auth-library). */
export const googleProvider: CalendarProvider = {
  id: "google",
  brand: "Google",
  product: "Google Calendar",
  page: "/google",
  syncKind: SYNC_KIND,
  exportKind: EXPORT_KIND,
  configured: () => googleConfig() !== null,
  syncIntervalSeconds: () => env().GOOGLE_SYNC_INTERVAL_SECONDS,

  consentUrl: ({ redirectUri, state, codeChallenge }) =>
    newOAuthClient(redirectUri).generateAuthUrl({
      access_type: "offline",
      prompt: "consent",
      include_granted_scopes: true,
      scope: GOOGLE_SCOPES,
      state,
      code_challenge: codeChallenge,
      code_challenge_method: CodeChallengeMethod.S256,
    }),

  async exchangeCode({ code, codeVerifier, redirectUri }) {
    const client = newOAuthClient(redirectUri);
    let tokens: Credentials;
    try {
      ({ tokens } = await client.getToken({ code, codeVerifier, redirect_uri: redirectUri }));
    } catch (err) {
      throw new AppError("invalid_request", `Google refused the authorization code: ${googleFailure(err).message}`);
    }
    if (!tokens.refresh_token) throw new AppError("invalid_request", "Google returned no refresh token (offline access was not granted). Connect again.");
    const granted = (tokens.scope ?? "").split(" ").filter(Boolean);
    const missing = GOOGLE_SCOPES.filter((s) => !granted.includes(s));
    if (missing.length) throw new AppError("invalid_request", `Google access was granted without ${missing.join(", ")}: allow calendar access and connect again.`);
    client.setCredentials(tokens);
    const list = await calendarClient(client).calendarList.list({ minAccessRole: "reader" });
    const email = list.data.items?.find((c) => c.primary)?.id;
    if (!email) throw new AppError("invalid_request", "The Google account has no primary calendar.");
    return { email, refreshToken: tokens.refresh_token, scopes: granted };
  },

  async revoke(connection) {
    if (!connection.refreshTokenSealed) return;
    try {
      await callGoogle(connection.id, () => newOAuthClient().revokeToken(open(connection.refreshTokenSealed!)));
    } catch (err) {
      const f = googleFailure(err);
      // Google answers 400 invalid_token for a token it already revoked: that is the goal reached.
      if (!(f.status === 400 && f.reason === "invalid_token")) throw new Error(f.message);
    }
  },

  forget: (connectionId) => void forgetClient(connectionId),

  async listCalendars(connection) {
    const api = calendarClient(authorizedClient(connection));
    const res = await callGoogle(connection.id, () => api.calendarList.list({ minAccessRole: "writer" }));
    return (res.data.items ?? [])
      .filter((c) => c.id)
      .map((c) => ({ id: c.id!, name: c.summaryOverride ?? c.summary ?? c.id!, primary: Boolean(c.primary), accessRole: c.accessRole ?? "writer" }));
  },

  /** Lists every page: all events (full sync), or what changed since the sync token (incremental). */
  async fetchChanges(connection, link, syncToken) {
    const api = calendarClient(authorizedClient(connection));
    const items: calendar_v3.Schema$Event[] = [];
    let pageToken: string | undefined;
    for (;;) {
      const res = await callGoogle(connection.id, () =>
        api.events.list({
          calendarId: link.googleCalendarId,
          singleEvents: true,
          maxResults: PAGE_SIZE,
          ...(syncToken ? { syncToken } : { showDeleted: false }),
          ...(pageToken ? { pageToken } : {}),
        }),
      );
      items.push(...(res.data.items ?? []));
      if (res.data.nextPageToken) {
        pageToken = res.data.nextPageToken;
        continue;
      }
      if (!res.data.nextSyncToken) throw new Error("Google's last page carried no nextSyncToken.");
      const timeZone = res.data.timeZone ?? "UTC";
      const imported: ImportedEvent[] = items
        .filter((ev) => ev.id)
        .map((ev) => ({ id: ev.id!, busy: busyInterval(ev, timeZone), exportTag: ev.extendedProperties?.private?.[EXPORT_EVENT_PROPERTY] ?? null, version: remoteVersion(ev, timeZone) }));
      return { full: !syncToken, items: imported, nextSyncToken: res.data.nextSyncToken };
    }
  },

  /** events.list over the window, one instance per occurrence, deleted events included (Google keeps them as cancelled). */
  listWindow: (connection, link, from, to, maxEvents) =>
    listEvents(connection, { calendarId: link.googleCalendarId, singleEvents: true, showDeleted: true, timeMin: from.toISOString(), timeMax: to.toISOString() }, maxEvents),
  /**
   * events.list filtered by our mark (privateExtendedProperty=agentdraft_export=1) from `after` on,
   * with no end: the marked events only. A series comes once (not singleEvents: with no timeMax a
   * marked weekly series would otherwise be every week for years).
   */
  listTagged: (connection, link, after, maxEvents) =>
    listEvents(connection, { calendarId: link.googleCalendarId, singleEvents: false, privateExtendedProperty: [`${EXPORT_MARK_PROPERTY}=${EXPORT_MARK_VALUE}`], timeMin: after.toISOString() }, maxEvents),
  async getEvent(connection, link, remoteId) {
    const api = calendarClient(authorizedClient(connection));
    try {
      const res = await callGoogle(connection.id, () => api.events.get({ calendarId: link.googleCalendarId, eventId: remoteId }));
      const ev = res.data;
      return { id: ev.id ?? remoteId, exportTag: ev.extendedProperties?.private?.[EXPORT_EVENT_PROPERTY] ?? null, version: remoteVersion(ev, ev.start?.timeZone ?? "UTC") };
    } catch (err) {
      if (googleFailure(err).status === 404) return null;
      throw err;
    }
  },
  listsDeleted: true,

  watch: (connection, link) => openChannel(connection, link),
  stopWatch: (connection, channel) => stopChannel(connection, channel),

  /** Never duplicates: look up by our tag first, insert with our deterministic id. */
  async exportEvent(connection, row, event): Promise<ExportOutcome> {
    const api = calendarClient(authorizedClient(connection));
    // An earlier attempt may have reached Google and lost its answer: look for our tag first.
    const existing = await callGoogle(connection.id, () =>
      api.events.list({ calendarId: row.googleCalendarId, privateExtendedProperty: [`${EXPORT_EVENT_PROPERTY}=${event.id}`], showDeleted: true, maxResults: 1 }),
    );
    if (existing.data.items?.length) return { ok: true, detail: "already_exported" };
    const title = typeof event.metadata.title === "string" ? event.metadata.title.slice(0, 200) : "Booked by AgentDraft";
    // A re-booking (issue #32): the export carries the replaced event's Google id, not this event's
    // own: that event is updated in place (restored if a person deleted it), never a second one.
    let insertId = row.googleEventId;
    if (row.googleEventId !== ownEventId(event.id)) {
      try {
        await callGoogle(connection.id, () =>
          api.events.patch({
            calendarId: row.googleCalendarId,
            eventId: row.googleEventId,
            sendUpdates: "none",
            requestBody: {
              status: "confirmed",
              description: `Committed from AgentDraft hold ${event.holdId ?? "-"} (event ${event.id}).`,
              start: { dateTime: event.startTime.toISOString() },
              end: { dateTime: event.endTime.toISOString() },
              extendedProperties: { private: exportProperties(event) },
            },
          }),
        );
        return { ok: true, detail: "updated" };
      } catch (err) {
        const status = googleFailure(err).status;
        if (status !== 404 && status !== 410) throw err;
        // Gone for good at Google: this event gets its own copy, under its own deterministic id.
        insertId = ownEventId(event.id);
      }
    }
    try {
      await callGoogle(connection.id, () =>
        api.events.insert({
          calendarId: row.googleCalendarId,
          sendUpdates: "none",
          requestBody: {
            id: insertId,
            summary: title,
            description: `Committed from AgentDraft hold ${event.holdId ?? "-"} (event ${event.id}).`,
            start: { dateTime: event.startTime.toISOString() },
            end: { dateTime: event.endTime.toISOString() },
            transparency: "opaque",
            extendedProperties: { private: exportProperties(event) },
          },
        }),
      );
      return { ok: true, detail: "inserted", remoteEventId: insertId };
    } catch (err) {
      // 409 duplicate: our deterministic id is taken, i.e. this event is already there.
      if (googleFailure(err).status === 409) return { ok: true, detail: "already_exported" };
      throw err;
    }
  },

  async deleteEvent(connection, row): Promise<ExportOutcome> {
    const api = calendarClient(authorizedClient(connection));
    try {
      await callGoogle(connection.id, () => api.events.delete({ calendarId: row.googleCalendarId, eventId: row.googleEventId, sendUpdates: "none" }));
      return { ok: true, detail: "deleted" };
    } catch (err) {
      const status = googleFailure(err).status;
      if (status === 404 || status === 410) return { ok: true, detail: "already_gone" };
      throw err;
    }
  },

  describe: (err) => googleFailure(err).message,
  isRevokedGrant: (err) => isRevokedGrant(err),
  isSyncTokenInvalid: (err) => googleFailure(err).status === 410,
};
