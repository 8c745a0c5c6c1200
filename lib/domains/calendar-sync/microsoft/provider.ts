import { createHash, randomBytes } from "node:crypto";
import type { CalendarProvider, ExportOutcome, ImportedEvent, ListedEvent } from "../provider";
import type { GoogleConnectionRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { MICROSOFT_SCOPES, microsoftConfig, notificationAddresses, REQUIRED_SCOPES } from "./config";
import { describeMicrosoft, forgetToken, graph, isRevokedGrant, MicrosoftError, requireMicrosoftConfig, tokenRequest } from "./graph";
import { graphBusyInterval, graphRemoteVersion, type GraphEvent } from "./busy-interval";
import { MICROSOFT_EXPORT_KIND, MICROSOFT_RENEW_KIND, MICROSOFT_SYNC_KIND, SUBSCRIPTION_RENEW_BEFORE_SECONDS } from "./work-sources";
import { scheduleWork } from "../../../platform/jobs/schedule";

/** Our single-value extended properties (a fixed AgentDraft property set): the AgentDraft event and hold an exported event stands for. */
const PROPERTY_SET = "{5d1e7a3c-8b2f-4c6e-9a41-3f0b6c2d7e19}";
export const EVENT_PROPERTY_ID = `String ${PROPERTY_SET} Name agentdraft_event_id`;
export const HOLD_PROPERTY_ID = `String ${PROPERTY_SET} Name agentdraft_hold_id`;

/** The single-value extended properties of an exported copy: the event and hold it stands for. */
const exportProperties = (event: { id: string; holdId: string | null }) => [
  { id: EVENT_PROPERTY_ID, value: event.id },
  { id: HOLD_PROPERTY_ID, value: event.holdId ?? "" },
];

/** calendarView needs a window: from a week back to 400 days ahead; a full resync moves it on once under 300 days remain. */
const WINDOW_BACK_DAYS = 7;
const WINDOW_AHEAD_DAYS = 400;
const WINDOW_MIN_AHEAD_DAYS = 300;
const DAY = 86_400_000;

/** Graph allows calendar subscriptions just under three days (4,230 minutes). */
const SUBSCRIPTION_MINUTES = 4200;

/** What the link stores as its sync token: the delta link and the end of its window. */
type DeltaState = { deltaLink: string; windowEnd: string };

const parseState = (token: string | null): DeltaState | null => {
  if (!token) return null;
  try {
    const s = JSON.parse(token) as DeltaState;
    return typeof s.deltaLink === "string" && typeof s.windowEnd === "string" ? s : null;
  } catch {
    return null;
  }
};

type Page<T> = { value?: T[]; "@odata.nextLink"?: string; "@odata.deltaLink"?: string };

/** The mailbox's time zone (all-day events are read in it), or null when it cannot be read (the permission was not granted). */
async function mailboxZone(connection: GoogleConnectionRow): Promise<string | null> {
  try {
    return (await graph<{ value?: string }>(connection, "/me/mailboxSettings/timeZone")).value ?? null;
  } catch (err) {
    if (err instanceof MicrosoftError && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
}

/** The same key for every attempt at one export: Graph's transactionId makes a retried POST create no second event. */
const transactionIdFor = (calendarEventId: string) => {
  const h = createHash("sha256").update(`agentdraft:${calendarEventId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

const quote = (s: string) => s.replace(/'/g, "''");

type TaggedGraphEvent = GraphEvent & { singleValueExtendedProperties?: { id: string; value: string }[] };
const LISTED_FIELDS = "id,start,end,isAllDay,isCancelled,showAs,type,attendees,organizer,responseStatus,lastModifiedDateTime,originalStartTimeZone";
const tagExpand = () => `singleValueExtendedProperties($filter=id eq '${quote(EVENT_PROPERTY_ID)}')`;

/** Every page of a listing from `first` (tag expanded, times in UTC), but what `skip` leaves out; at most `maxEvents`. */
async function listTaggedPages(
  connection: GoogleConnectionRow,
  first: string,
  maxEvents: number,
  skip: (ev: TaggedGraphEvent, version: ReturnType<typeof graphRemoteVersion>) => boolean,
): Promise<{ items: ListedEvent[]; complete: boolean }> {
  const zone = await mailboxZone(connection);
  const items: ListedEvent[] = [];
  let next: string | undefined = first;
  while (next) {
    const page: Page<TaggedGraphEvent> = await graph(connection, next, { headers: { prefer: 'outlook.timezone="UTC"' } });
    for (const ev of page.value ?? []) {
      if (!ev.id) continue;
      const version = graphRemoteVersion(ev, zone);
      if (skip(ev, version)) continue;
      if (items.length >= maxEvents) return { items, complete: false };
      const tag = ev.singleValueExtendedProperties?.find((p) => p.id.toLowerCase() === EVENT_PROPERTY_ID.toLowerCase())?.value ?? null;
      items.push({ id: ev.id, exportTag: tag, version });
    }
    next = page["@odata.nextLink"];
  }
  return { items, complete: true };
}

/** Our exported copy of an AgentDraft event in that calendar, found by its tag (or null). */
async function findExported(connection: GoogleConnectionRow, calendarId: string, calendarEventId: string): Promise<string | null> {
  const filter = `singleValueExtendedProperties/Any(ep: ep/id eq '${quote(EVENT_PROPERTY_ID)}' and ep/value eq '${quote(calendarEventId)}')`;
  const page = await graph<Page<{ id: string }>>(connection, `/me/calendars/${encodeURIComponent(calendarId)}/events?${new URLSearchParams({ $filter: filter, $select: "id", $top: "1" })}`);
  return page.value?.[0]?.id ?? null;
}

/** Microsoft 365 / Outlook: the Microsoft identity platform (OAuth 2.0 code flow with PKCE) and Microsoft Graph calendars. */
export const microsoftProvider: CalendarProvider = {
  id: "microsoft",
  brand: "Microsoft",
  product: "Microsoft 365 / Outlook",
  page: "/microsoft",
  syncKind: MICROSOFT_SYNC_KIND,
  exportKind: MICROSOFT_EXPORT_KIND,
  configured: () => microsoftConfig() !== null,
  syncIntervalSeconds: () => env().MICROSOFT_SYNC_INTERVAL_SECONDS,

  consentUrl({ redirectUri, state, codeChallenge }) {
    const c = requireMicrosoftConfig();
    const url = new URL(c.authorizeUrl);
    url.search = new URLSearchParams({
      client_id: c.clientId,
      response_type: "code",
      redirect_uri: redirectUri,
      response_mode: "query",
      scope: MICROSOFT_SCOPES.join(" "),
      state,
      code_challenge: codeChallenge,
      code_challenge_method: "S256",
      prompt: "select_account",
    }).toString();
    return url.toString();
  },

  async exchangeCode({ code, codeVerifier, redirectUri }) {
    let answer: Awaited<ReturnType<typeof tokenRequest>>;
    try {
      answer = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier });
    } catch (err) {
      throw new AppError("invalid_request", `Microsoft refused the authorization code: ${describeMicrosoft(err)}`);
    }
    if (!answer.refresh_token) throw new AppError("invalid_request", "Microsoft returned no refresh token (offline_access was not granted). Connect again.");
    // Graph scopes come back as full URIs (https://graph.microsoft.com/Calendars.ReadWrite) or bare names.
    const granted = (answer.scope ?? "").split(" ").filter(Boolean).map((s) => s.replace(/^https:\/\/graph\.microsoft\.com\//i, ""));
    const missing = REQUIRED_SCOPES.filter((s) => !granted.some((g) => g.toLowerCase() === s.toLowerCase()));
    if (missing.length) throw new AppError("invalid_request", `Microsoft access was granted without ${missing.join(", ")}: allow calendar access and connect again.`);
    const me = await fetch(`${requireMicrosoftConfig().graphUrl}/me?$select=mail,userPrincipalName`, { headers: { authorization: `Bearer ${answer.access_token}`, accept: "application/json" } })
      .then(async (r) => (r.ok ? ((await r.json()) as { mail?: string | null; userPrincipalName?: string }) : null))
      .catch(() => null);
    const email = me?.mail ?? me?.userPrincipalName;
    if (!email) throw new AppError("invalid_request", "Microsoft Graph did not say who the account is (GET /me). Connect again.");
    return { email, refreshToken: answer.refresh_token, scopes: granted };
  },

  // The identity platform has no endpoint revoking one app's refresh token (revokeSignInSessions
  // would sign the person out of everything): the token is forgotten, and the person removes
  // the app's consent themselves.
  async revoke() {
    throw new Error("Microsoft offers no revocation of one app's token: remove AgentDraft's access at https://myapps.microsoft.com (work or school) or https://account.live.com/consent/Manage (personal).");
  },

  forget: (connectionId) => void forgetToken(connectionId),

  async listCalendars(connection) {
    const out: { id: string; name: string; primary: boolean; accessRole: string }[] = [];
    let next: string | undefined = "/me/calendars?$select=id,name,canEdit,isDefaultCalendar&$top=100";
    while (next) {
      const page: Page<{ id: string; name?: string; canEdit?: boolean; isDefaultCalendar?: boolean }> = await graph(connection, next);
      for (const c of page.value ?? []) if (c.id && c.canEdit !== false) out.push({ id: c.id, name: c.name ?? c.id, primary: Boolean(c.isDefaultCalendar), accessRole: "writer" });
      next = page["@odata.nextLink"];
    }
    return out;
  },

  /**
   * calendarView/delta: every page (@odata.nextLink) up to the @odata.deltaLink, which is the
   * next sync token. Recurring series come expanded into their occurrences. A first sync (or one
   * whose window is running out) starts a new window and is a full sync.
   */
  async fetchChanges(connection, link, syncToken) {
    const state = parseState(syncToken);
    const renewWindow = !state || new Date(state.windowEnd).getTime() - Date.now() < WINDOW_MIN_AHEAD_DAYS * DAY;
    const windowEnd = renewWindow ? new Date(Date.now() + WINDOW_AHEAD_DAYS * DAY).toISOString() : state!.windowEnd;
    let next: string | undefined = renewWindow
      ? `/me/calendars/${encodeURIComponent(link.googleCalendarId)}/calendarView/delta?${new URLSearchParams({ startDateTime: new Date(Date.now() - WINDOW_BACK_DAYS * DAY).toISOString(), endDateTime: windowEnd })}`
      : state!.deltaLink;
    const zone = await mailboxZone(connection);
    const items: ImportedEvent[] = [];
    for (;;) {
      const page: Page<GraphEvent> = await graph(connection, next!, { headers: { prefer: 'outlook.timezone="UTC", odata.maxpagesize=100' } });
      for (const ev of page.value ?? []) if (ev.id) items.push({ id: ev.id, busy: graphBusyInterval(ev, zone), version: graphRemoteVersion(ev, zone) });
      if (page["@odata.nextLink"]) {
        next = page["@odata.nextLink"];
        continue;
      }
      if (!page["@odata.deltaLink"]) throw new MicrosoftError("graph", 200, null, "the last delta page carried no @odata.deltaLink");
      return { full: renewWindow, items, nextSyncToken: JSON.stringify({ deltaLink: page["@odata.deltaLink"], windowEnd } satisfies DeltaState) };
    }
  },

  /**
   * calendarView over the window (occurrences expanded) with our event tag expanded. Graph keeps
   * no deleted events in a calendar: a deleted one is simply not listed.
   */
  async listWindow(connection, link, from, to, maxEvents) {
    const first = `/me/calendars/${encodeURIComponent(link.googleCalendarId)}/calendarView?${new URLSearchParams({
      startDateTime: from.toISOString(),
      endDateTime: to.toISOString(),
      $select: LISTED_FIELDS,
      $expand: tagExpand(),
      $top: "100",
    })}`;
    return listTaggedPages(connection, first, maxEvents, (ev) => ev.type === "seriesMaster");
  },
  /**
   * The calendar's events (not calendarView: no window) that carry our event tag at all (Graph
   * filters a string property's value with ne, so `ne null` is "has the tag"), tag expanded. Graph
   * lists a recurring series once, as its master; one ended before `after` is skipped here.
   */
  async listTagged(connection, link, after, maxEvents) {
    const first = `/me/calendars/${encodeURIComponent(link.googleCalendarId)}/events?${new URLSearchParams({
      $filter: `singleValueExtendedProperties/Any(ep: ep/id eq '${quote(EVENT_PROPERTY_ID)}' and ep/value ne null)`,
      $select: LISTED_FIELDS,
      $expand: tagExpand(),
      $top: "100",
    })}`;
    return listTaggedPages(connection, first, maxEvents, (_ev, version) => version.end !== null && version.end <= after);
  },
  async getEvent(connection, link, remoteId) {
    const zone = await mailboxZone(connection);
    try {
      const ev = await graph<GraphEvent & { singleValueExtendedProperties?: { id: string; value: string }[] }>(
        connection,
        `/me/calendars/${encodeURIComponent(link.googleCalendarId)}/events/${encodeURIComponent(remoteId)}?${new URLSearchParams({ $expand: `singleValueExtendedProperties($filter=id eq '${quote(EVENT_PROPERTY_ID)}')` })}`,
        { headers: { prefer: 'outlook.timezone="UTC"' } },
      );
      const tag = ev.singleValueExtendedProperties?.find((p) => p.id.toLowerCase() === EVENT_PROPERTY_ID.toLowerCase())?.value ?? null;
      return { id: ev.id ?? remoteId, exportTag: tag, version: graphRemoteVersion(ev, zone) };
    } catch (err) {
      if (err instanceof MicrosoftError && err.status === 404) return null;
      throw err;
    }
  },
  listsDeleted: false,

  async watch(connection, link) {
    const addresses = notificationAddresses();
    if (!addresses) return null;
    const clientState = randomBytes(32).toString("base64url");
    // Graph checks the notification URL (a validationToken POST) before it answers this.
    const sub = await graph<{ id: string; resource?: string; expirationDateTime: string }>(connection, "/subscriptions", {
      method: "POST",
      body: {
        changeType: "created,updated,deleted",
        ...addresses,
        resource: `/me/calendars/${link.googleCalendarId}/events`,
        expirationDateTime: new Date(Date.now() + SUBSCRIPTION_MINUTES * 60_000).toISOString(),
        clientState,
        latestSupportedTlsVersion: "v1_2",
      },
    });
    const expiresAt = new Date(sub.expirationDateTime);
    // Its renewal is a timer of its own, due a margin before Graph would end it.
    void scheduleWork(MICROSOFT_RENEW_KIND, [{ id: link.id, workspaceId: link.workspaceId, key: link.connectionId, dueAt: new Date(expiresAt.getTime() - SUBSCRIPTION_RENEW_BEFORE_SECONDS * 1000) }]);
    return { id: sub.id, resourceId: sub.resource ?? null, token: clientState, expiresAt };
  },

  async stopWatch(connection, channel) {
    if (!channel.channelId) return;
    try {
      await graph(connection, `/subscriptions/${encodeURIComponent(channel.channelId)}`, { method: "DELETE" });
    } catch (err) {
      if (!(err instanceof MicrosoftError && err.status === 404)) throw err;
    }
  },

  /** Never duplicates: look up our tag first; create with a transactionId derived from the event, so a retried POST is not a second event. */
  async exportEvent(connection, row, event): Promise<ExportOutcome> {
    const found = await findExported(connection, row.googleCalendarId, event.id);
    if (found) return { ok: true, detail: "already_exported", remoteEventId: found };
    const title = typeof event.metadata.title === "string" ? event.metadata.title.slice(0, 200) : "Booked by AgentDraft";
    // A re-booking (issue #32): the export carries the replaced event's Graph id (ours are
    // "agentdraft…" until Graph names the event): that event is updated in place, never a second one.
    if (!row.googleEventId.startsWith("agentdraft")) {
      try {
        await graph(connection, `/me/calendars/${encodeURIComponent(row.googleCalendarId)}/events/${encodeURIComponent(row.googleEventId)}`, {
          method: "PATCH",
          body: {
            body: { contentType: "text", content: `Committed from AgentDraft hold ${event.holdId ?? "-"} (event ${event.id}).` },
            start: { dateTime: event.startTime.toISOString().replace(/Z$/, ""), timeZone: "UTC" },
            end: { dateTime: event.endTime.toISOString().replace(/Z$/, ""), timeZone: "UTC" },
            showAs: "busy",
            singleValueExtendedProperties: exportProperties(event),
          },
        });
        return { ok: true, detail: "updated", remoteEventId: row.googleEventId };
      } catch (err) {
        // A person deleted it in Outlook: this event gets a copy of its own, below.
        if (!(err instanceof MicrosoftError && (err.status === 404 || err.status === 410))) throw err;
      }
    }
    const created = await graph<{ id: string }>(connection, `/me/calendars/${encodeURIComponent(row.googleCalendarId)}/events`, {
      method: "POST",
      body: {
        subject: title,
        body: { contentType: "text", content: `Committed from AgentDraft hold ${event.holdId ?? "-"} (event ${event.id}).` },
        start: { dateTime: event.startTime.toISOString().replace(/Z$/, ""), timeZone: "UTC" },
        end: { dateTime: event.endTime.toISOString().replace(/Z$/, ""), timeZone: "UTC" },
        showAs: "busy",
        isReminderOn: false,
        transactionId: transactionIdFor(event.id),
        singleValueExtendedProperties: exportProperties(event),
      },
    });
    return { ok: true, detail: "inserted", remoteEventId: created.id };
  },

  async deleteEvent(connection, row): Promise<ExportOutcome> {
    // The stored id is Graph's once the export succeeded; before that (an answer lost), find it by tag.
    const id = row.googleEventId.startsWith("agentdraft") ? await findExported(connection, row.googleCalendarId, row.calendarEventId) : row.googleEventId;
    if (!id) return { ok: true, detail: "already_gone" };
    try {
      await graph(connection, `/me/calendars/${encodeURIComponent(row.googleCalendarId)}/events/${encodeURIComponent(id)}`, { method: "DELETE" });
      return { ok: true, detail: "deleted", remoteEventId: id };
    } catch (err) {
      if (err instanceof MicrosoftError && (err.status === 404 || err.status === 410)) return { ok: true, detail: "already_gone" };
      throw err;
    }
  },

  describe: (err) => describeMicrosoft(err),
  isRevokedGrant: (err) => isRevokedGrant(err),
  isSyncTokenInvalid: (err) =>
    err instanceof MicrosoftError && (err.status === 410 || ["syncStateNotFound", "syncStateInvalid", "resyncRequired"].includes((err.code ?? "").replace(/^./, (c) => c.toLowerCase()))),
};
