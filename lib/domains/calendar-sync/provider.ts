import type { CalendarEventRow, CalendarProviderId, GoogleCalendarLinkRow, GoogleConnectionRow, GoogleEventExportRow } from "../../../db/schema";

/**
 * One calendar provider (Google Calendar, Microsoft 365 / Outlook) as the shared sync engine
 * sees it. Everything that is the same for every provider — connecting (state, PKCE, sealing
 * the refresh token), links, the sync and export jobs, imported busy time and its conflicts,
 * failures, webhooks and audit — lives once in lib/domains/calendar-sync and calls only this. A
 * provider speaks its own API and says what its errors mean; it writes nothing to the database.
 *
 * The tables keep their first (Google) names: `google_connections.provider` says whose account
 * a connection is; links and exports belong to a connection.
 */
export interface CalendarProvider {
  id: CalendarProviderId;
  /** "Google", "Microsoft": in messages ("This Google sign-in ..."). */
  brand: string;
  /** "Google Calendar", "Microsoft 365 / Outlook": page titles, notices. */
  product: string;
  /** The web app page of this provider. */
  page: string;
  /** Work kinds (lib/composition/job-kinds.ts) that run this provider's syncs and exports. */
  syncKind: string;
  exportKind: string;
  configured(): boolean;
  /** Seconds between periodic resyncs of a link. */
  syncIntervalSeconds(): number;

  /** The consent URL for the authorization-code flow with PKCE (S256) and offline access. */
  consentUrl(p: { redirectUri: string; state: string; codeChallenge: string }): string;
  /** Exchanges the code (with the PKCE verifier) and learns the account; throws AppError(invalid_request) with a clear message. */
  exchangeCode(p: { code: string; codeVerifier: string; redirectUri: string }): Promise<ConnectedAccount>;
  /** Revokes the refresh token at the provider (or signs the grant out); resolves when it is gone or was already. */
  revoke(connection: GoogleConnectionRow): Promise<void>;
  /** Drops any cached client / access token of a connection. */
  forget(connectionId: string): void;

  /** The account's calendars AgentDraft may write to. */
  listCalendars(connection: GoogleConnectionRow): Promise<CalendarChoice[]>;
  /** Every page of changes: everything (syncToken null: a full sync) or what changed since the token. */
  fetchChanges(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow, syncToken: string | null): Promise<FetchedChanges>;

  /**
   * Every event of the calendar overlapping [from, to), one instance per occurrence, with its
   * AgentDraft tag and its version (the drift check, issue #32): at most `maxEvents`, `complete`
   * false when there were more. A provider that keeps deleted events (`listsDeleted`) lists them
   * as cancelled; one that does not (Graph) simply omits them.
   */
  listWindow(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow, from: Date, to: Date, maxEvents: number): Promise<ListedWindow>;
  /** One event by its id (deleted ones as cancelled where the provider keeps them), or null when the provider answers 404: it has no such event. */
  getEvent(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow, remoteId: string): Promise<ListedEvent | null>;
  /**
   * Every live event of the calendar tagged as AgentDraft's that ends after `after`, wherever it
   * lies (the drift check's search for orphans outside the window, issue #32): found by the
   * provider's own filter (Google's privateExtendedProperty on the mark every copy carries, Graph's
   * singleValueExtendedProperties $filter on the tag), so the cost is the tagged events, not the
   * calendar. At most `maxEvents`, `complete` false when there were more.
   */
  listTagged(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow, after: Date, maxEvents: number): Promise<ListedWindow>;
  /** Whether `listWindow` shows deleted events (as cancelled): then a missing event was lost, not deleted by a person. */
  listsDeleted: boolean;

  /** Opens a change subscription for the link (push channel / Graph subscription), or null when this deployment cannot receive one. */
  watch(connection: GoogleConnectionRow, link: GoogleCalendarLinkRow): Promise<WatchChannel | null>;
  /** Stops a subscription; one the provider no longer knows is already stopped. */
  stopWatch(connection: GoogleConnectionRow, channel: Pick<GoogleCalendarLinkRow, "channelId" | "channelResourceId" | "googleCalendarId">): Promise<void>;

  /** Makes the event exist in the provider's calendar exactly once (tagged with the event and hold ids). */
  exportEvent(connection: GoogleConnectionRow, row: GoogleEventExportRow, event: CalendarEventRow): Promise<ExportOutcome>;
  /** Removes the exported copy; one already gone is success. */
  deleteEvent(connection: GoogleConnectionRow, row: GoogleEventExportRow): Promise<ExportOutcome>;

  /** A failure as a person reads it ("Google answered 429 ..."). */
  describe(err: unknown): string;
  /** The provider refused the refresh token (revoked, expired): the connection needs a reconnect. */
  isRevokedGrant(err: unknown): boolean;
  /** The sync token / delta link is no longer valid: start over with a full sync. */
  isSyncTokenInvalid(err: unknown): boolean;
}

export type ConnectedAccount = { email: string; refreshToken: string; scopes: string[] };

export type CalendarChoice = { id: string; name: string; primary: boolean; accessRole: string };

/**
 * One changed event as imported: its id (an occurrence's own id for a recurring series) and
 * the busy time it stands for (null: not busy, or deleted). `exportTag` is the AgentDraft event
 * id the event is tagged with (null: untagged); undefined when the provider's change feed
 * cannot show tags, and then an event is ours when our export row names its id.
 */
export type ImportedEvent = { id: string; busy: { start: Date; end: Date } | null; exportTag?: string | null; version?: RemoteVersion };

/**
 * What the provider says of the event itself, whatever its busy time: read when the event is one
 * AgentDraft exported, to see whether a person moved, cancelled or declined it (issue #32).
 * `status`: deleted or cancelled is "cancelled"; every attendee but the calendar's owner
 * declined is "declined". `updatedAt` and `changedBy` are what the provider says of the last
 * change (neither provider names who made it: `changedBy` is the organizer or creator it names).
 */
export type RemoteVersion = { status: "confirmed" | "cancelled" | "declined"; start: Date | null; end: Date | null; updatedAt: Date | null; changedBy: string | null };

/** An event as the drift check lists it: `exportTag` is the AgentDraft event id it is tagged with (null: untagged). */
export type ListedEvent = { id: string; exportTag: string | null; version: RemoteVersion };
export type ListedWindow = { items: ListedEvent[]; complete: boolean };

export type FetchedChanges = { full: boolean; items: ImportedEvent[]; nextSyncToken: string };

export type WatchChannel = { id: string; resourceId: string | null; token: string; expiresAt: Date };

export type ExportOutcome =
  | { ok: true; detail: "inserted" | "updated" | "already_exported" | "deleted" | "already_gone"; remoteEventId?: string }
  | { ok: false; error: string; final?: boolean };
