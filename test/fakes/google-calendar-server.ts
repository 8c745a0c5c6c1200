import http from "node:http";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for Google Calendar and Google's OAuth endpoints, speaking their REST
 * protocol for the endpoints AgentDraft uses, so the real Google client libraries (`@googleapis/calendar`, `google-auth-library`) can be pointed at
 * it (`rootUrl`, OAuth2Client `endpoints`). Listens on 127.0.0.1 only. Hooks inject quota
 * errors, lost responses and expired sync tokens.
 */

export type FakeEvent = {
  kind: "calendar#event";
  id: string;
  status: "confirmed" | "tentative" | "cancelled";
  summary?: string;
  description?: string;
  transparency?: "opaque" | "transparent";
  start?: { dateTime?: string; date?: string; timeZone?: string };
  end?: { dateTime?: string; date?: string; timeZone?: string };
  extendedProperties?: { private?: Record<string, string>; shared?: Record<string, string> };
  attendees?: { email: string; self?: boolean; organizer?: boolean; responseStatus?: string }[];
  organizer?: { email: string; self?: boolean };
  creator?: { email: string; self?: boolean };
  updated: string;
  etag: string;
};

type StoredEvent = FakeEvent & { seq: number };
type FakeCalendar = { id: string; summary: string; primary: boolean; timeZone: string; events: Map<string, StoredEvent> };
type Channel = { id: string; resourceId: string; token?: string; address: string; calendarId: string; expiration: number; stopped: boolean };
type Failure = { status: number; reason: string; domain?: string; match?: (method: string, path: string) => boolean };
type Grant = { email: string; scopes: string[]; revoked: boolean };

const json = (res: http.ServerResponse, status: number, body?: unknown) => {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify(body));
};

/** Google's error body: `{error: {errors: [{domain, reason, message}], code, message}}`. */
export const googleError = (code: number, reason: string, message: string, domain = "global") => ({
  error: { errors: [{ domain, reason, message }], code, message },
});

const oauthError = (res: http.ServerResponse, status: number, error: string, description: string) =>
  json(res, status, { error, error_description: description });

const BASE32HEX = /^[a-v0-9]{5,1024}$/;

export type FakeGoogle = Awaited<ReturnType<typeof startFakeGoogle>>;

export async function startFakeGoogle(opts: { email?: string; clientId?: string; clientSecret?: string; port?: number } = {}) {
  const clientId = opts.clientId ?? "fake-client-id.apps.googleusercontent.com";
  const clientSecret = opts.clientSecret ?? "fake-client-secret";
  const email = opts.email ?? "ops@example.com";

  let seq = 0;
  /** Sync tokens issued before this sequence are refused with 410 (Google expires them at will). */
  let syncTokenFloor = 0;
  const calendars = new Map<string, FakeCalendar>();
  const channels = new Map<string, Channel>();
  const codes = new Map<string, { redirectUri: string; scopes: string[]; challenge?: string; email: string }>();
  const refreshTokens = new Map<string, Grant>();
  const accessTokens = new Map<string, { refreshToken: string; expires: number }>();
  const failures: Failure[] = [];
  const requests: { method: string; path: string; query: string; status?: number }[] = [];
  let dropNextInsertResponse = false;
  let pageSize = 250;

  const addCalendar = (id: string, summary: string, primary = false) => {
    const cal: FakeCalendar = { id, summary, primary, timeZone: "UTC", events: new Map() };
    calendars.set(id, cal);
    return cal;
  };
  addCalendar(email, email, true);

  const store = (cal: FakeCalendar, ev: Omit<FakeEvent, "kind" | "updated" | "etag" | "status"> & { status?: FakeEvent["status"] }) => {
    seq += 1;
    const stored: StoredEvent = {
      status: "confirmed",
      ...ev,
      kind: "calendar#event",
      updated: new Date().toISOString(),
      etag: `"${seq}"`,
      seq,
    };
    cal.events.set(stored.id, stored);
    return stored;
  };
  const publicEvent = ({ seq: _seq, ...ev }: StoredEvent): FakeEvent => ev;

  const encode = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const decode = <T>(s: string): T | null => {
    try {
      return JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as T;
    } catch {
      return null;
    }
  };

  async function readBody(req: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  function bearer(req: http.IncomingMessage): Grant | null {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    const at = m && accessTokens.get(m[1]!);
    if (!at || at.expires < Date.now()) return null;
    const grant = refreshTokens.get(at.refreshToken);
    return grant && !grant.revoked ? grant : null;
  }

  async function handleToken(req: http.IncomingMessage, res: http.ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    let id = form.get("client_id");
    let secret = form.get("client_secret");
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
    if (basic) {
      const [u, p] = Buffer.from(basic[1]!, "base64").toString().split(":");
      id = u ?? null;
      secret = p ?? null;
    }
    if (id !== clientId || secret !== clientSecret) return oauthError(res, 401, "invalid_client", "The OAuth client was not found.");
    const grantType = form.get("grant_type");
    const issueAccess = (refreshToken: string) => {
      const at = `ya29.fake-${randomBytes(16).toString("hex")}`;
      accessTokens.set(at, { refreshToken, expires: Date.now() + 3600_000 });
      return at;
    };
    if (grantType === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      if (!code) return oauthError(res, 400, "invalid_grant", "Malformed auth code.");
      codes.delete(form.get("code")!);
      if (code.redirectUri !== form.get("redirect_uri")) return oauthError(res, 400, "redirect_uri_mismatch", "Bad Request");
      if (code.challenge) {
        const verifier = form.get("code_verifier") ?? "";
        if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge) return oauthError(res, 400, "invalid_grant", "Invalid code verifier.");
      }
      const refresh = `1//fake-${randomBytes(16).toString("hex")}`;
      refreshTokens.set(refresh, { email: code.email, scopes: code.scopes, revoked: false });
      return json(res, 200, { access_token: issueAccess(refresh), expires_in: 3599, refresh_token: refresh, scope: code.scopes.join(" "), token_type: "Bearer" });
    }
    if (grantType === "refresh_token") {
      const refresh = form.get("refresh_token") ?? "";
      const grant = refreshTokens.get(refresh);
      if (!grant || grant.revoked) return oauthError(res, 400, "invalid_grant", "Token has been expired or revoked.");
      return json(res, 200, { access_token: issueAccess(refresh), expires_in: 3599, scope: grant.scopes.join(" "), token_type: "Bearer" });
    }
    return oauthError(res, 400, "unsupported_grant_type", "Invalid grant_type.");
  }

  function listEvents(cal: FakeCalendar, q: URLSearchParams, res: http.ServerResponse) {
    const pageToken = q.get("pageToken");
    const syncTokenParam = q.get("syncToken");
    type Cursor = { since: number | null; upTo: number; offset: number; showDeleted: boolean; filters: string[]; timeMin?: number; timeMax?: number };
    let cursor: Cursor;
    if (pageToken) {
      const c = decode<Cursor>(pageToken);
      if (!c) return json(res, 400, googleError(400, "invalid", "Invalid page token value."));
      cursor = c;
    } else {
      let since: number | null = null;
      if (syncTokenParam) {
        for (const p of ["timeMin", "timeMax", "q", "orderBy", "privateExtendedProperty", "iCalUID", "updatedMin"]) {
          if (q.has(p)) return json(res, 400, googleError(400, "invalid", `Parameter ${p} is not allowed with syncToken.`));
        }
        const t = decode<{ cal: string; seq: number }>(syncTokenParam);
        if (!t || t.cal !== cal.id || t.seq < syncTokenFloor) {
          return json(res, 410, googleError(410, "fullSyncRequired", "Sync token is no longer valid, a full sync is required."));
        }
        since = t.seq;
      }
      cursor = {
        since,
        upTo: seq,
        offset: 0,
        // An incremental sync always includes deletions; a full list only when asked.
        showDeleted: since !== null || q.get("showDeleted") === "true",
        filters: q.getAll("privateExtendedProperty"),
        // timeMin / timeMax: events ending after timeMin and starting before timeMax.
        ...(q.has("timeMin") ? { timeMin: Date.parse(q.get("timeMin")!) } : {}),
        ...(q.has("timeMax") ? { timeMax: Date.parse(q.get("timeMax")!) } : {}),
      };
    }
    const max = Math.min(Number(q.get("maxResults") ?? pageSize) || pageSize, pageSize);
    const matching = [...cal.events.values()]
      .filter((e) => e.seq <= cursor.upTo && (cursor.since === null || e.seq > cursor.since))
      .filter((e) => cursor.showDeleted || e.status !== "cancelled")
      .filter((e) => {
        const at = (t: FakeEvent["start"]) => (t?.dateTime ? Date.parse(t.dateTime) : t?.date ? Date.parse(`${t.date}T00:00:00Z`) : NaN);
        return (cursor.timeMin === undefined || !(at(e.end) <= cursor.timeMin)) && (cursor.timeMax === undefined || !(at(e.start) >= cursor.timeMax));
      })
      .filter((e) =>
        cursor.filters.every((f) => {
          // propertyName=value, an exact match of a private property (the value may hold "=").
          const at = f.indexOf("=");
          return at > 0 && e.extendedProperties?.private?.[f.slice(0, at)] === f.slice(at + 1);
        }),
      )
      .sort((a, b) => a.seq - b.seq);
    const items = matching.slice(cursor.offset, cursor.offset + max);
    const more = cursor.offset + max < matching.length;
    const body: Record<string, unknown> = {
      kind: "calendar#events",
      etag: `"p${seq}"`,
      summary: cal.summary,
      updated: new Date().toISOString(),
      timeZone: cal.timeZone,
      accessRole: "owner",
      items: items.map((e) =>
        e.status === "cancelled" ? { kind: e.kind, etag: e.etag, id: e.id, status: "cancelled" } : publicEvent(e),
      ),
    };
    if (more) body.nextPageToken = encode({ ...cursor, offset: cursor.offset + max });
    else if (cursor.filters.length === 0) body.nextSyncToken = encode({ cal: cal.id, seq: cursor.upTo });
    return json(res, 200, body);
  }

  async function handleCalendarApi(req: http.IncomingMessage, res: http.ServerResponse, path: string, q: URLSearchParams) {
    const method = req.method ?? "GET";
    const grant = bearer(req);
    if (!grant) return json(res, 401, googleError(401, "authError", "Invalid Credentials"));

    if (method === "GET" && path === "/calendar/v3/users/me/calendarList") {
      return json(res, 200, {
        kind: "calendar#calendarList",
        items: [...calendars.values()].map((c) => ({ kind: "calendar#calendarListEntry", id: c.id, summary: c.summary, timeZone: c.timeZone, accessRole: "owner", ...(c.primary ? { primary: true } : {}) })),
      });
    }
    if (method === "POST" && path === "/calendar/v3/channels/stop") {
      const body = JSON.parse((await readBody(req)) || "{}") as { id?: string; resourceId?: string };
      const ch = body.id ? channels.get(body.id) : undefined;
      if (!ch || ch.resourceId !== body.resourceId || ch.stopped) return json(res, 404, googleError(404, "notFound", `Channel '${body.id}' not found for project '1'`));
      ch.stopped = true;
      return json(res, 204);
    }
    if (method === "POST" && path === "/calendar/v3/freeBusy") {
      const body = JSON.parse((await readBody(req)) || "{}") as { timeMin: string; timeMax: string; items: { id: string }[] };
      const min = Date.parse(body.timeMin);
      const max = Date.parse(body.timeMax);
      const out: Record<string, unknown> = {};
      for (const { id } of body.items ?? []) {
        const cal = calendars.get(id);
        if (!cal) {
          out[id] = { errors: [{ domain: "global", reason: "notFound" }], busy: [] };
          continue;
        }
        const busy = [...cal.events.values()]
          .filter((e) => e.status !== "cancelled" && e.transparency !== "transparent" && e.start?.dateTime && e.end?.dateTime)
          .map((e) => ({ start: Math.max(Date.parse(e.start!.dateTime!), min), end: Math.min(Date.parse(e.end!.dateTime!), max) }))
          .filter((b) => b.end > b.start)
          .sort((a, b) => a.start - b.start);
        const merged: { start: number; end: number }[] = [];
        for (const b of busy) {
          const last = merged.at(-1);
          if (last && b.start <= last.end) last.end = Math.max(last.end, b.end);
          else merged.push({ ...b });
        }
        out[id] = { busy: merged.map((m) => ({ start: new Date(m.start).toISOString(), end: new Date(m.end).toISOString() })) };
      }
      return json(res, 200, { kind: "calendar#freeBusy", timeMin: body.timeMin, timeMax: body.timeMax, calendars: out });
    }

    const m = /^\/calendar\/v3\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(path);
    if (!m) return json(res, 404, googleError(404, "notFound", "Not Found"));
    const cal = calendars.get(decodeURIComponent(m[1]!));
    if (!cal) return json(res, 404, googleError(404, "notFound", "Not Found"));
    const sub = m[2] ? decodeURIComponent(m[2]) : undefined;

    if (method === "GET" && !sub) return listEvents(cal, q, res);
    if (method === "POST" && sub === "watch") {
      const body = JSON.parse((await readBody(req)) || "{}") as { id?: string; type?: string; address?: string; token?: string; expiration?: string };
      if (!body.id || body.type !== "web_hook" || !body.address?.startsWith("https://")) {
        return json(res, 400, googleError(400, "invalid", "WebHook callback must be HTTPS: " + body.address));
      }
      const expiration = Math.min(Number(body.expiration ?? Date.now() + 7 * 86400_000), Date.now() + 7 * 86400_000);
      const ch: Channel = { id: body.id, resourceId: randomBytes(12).toString("base64url"), token: body.token, address: body.address, calendarId: cal.id, expiration, stopped: false };
      channels.set(ch.id, ch);
      return json(res, 200, { kind: "api#channel", id: ch.id, resourceId: ch.resourceId, resourceUri: `https://www.googleapis.com/calendar/v3/calendars/${encodeURIComponent(cal.id)}/events?alt=json`, token: ch.token, expiration: String(ch.expiration) });
    }
    if (method === "POST" && !sub) {
      const body = JSON.parse((await readBody(req)) || "{}") as Partial<FakeEvent>;
      if (!body.start || !body.end) return json(res, 400, googleError(400, "required", "Missing end time."));
      const id = body.id ?? randomBytes(13).toString("hex");
      if (!BASE32HEX.test(id)) return json(res, 400, googleError(400, "invalid", "Invalid resource id value."));
      if (cal.events.has(id)) return json(res, 409, googleError(409, "duplicate", "The requested identifier already exists."));
      const stored = store(cal, { ...body, id } as FakeEvent);
      if (dropNextInsertResponse) {
        // The event exists at Google, but the caller never hears so (a crash or a lost response).
        dropNextInsertResponse = false;
        req.socket.destroy();
        return;
      }
      return json(res, 200, publicEvent(stored));
    }
    if (method === "GET" && sub) {
      // events.get: a deleted event is still returned (status cancelled); one Google never had (or purged) is 404.
      const ev = cal.events.get(sub);
      if (!ev) return json(res, 404, googleError(404, "notFound", "Not Found"));
      return json(res, 200, publicEvent(ev));
    }
    if (method === "PATCH" && sub && sub !== "watch") {
      // events.patch: the fields sent replace the stored ones (a cancelled event comes back with status confirmed).
      const ev = cal.events.get(sub);
      if (!ev) return json(res, 404, googleError(404, "notFound", "Not Found"));
      const body = JSON.parse((await readBody(req)) || "{}") as Partial<FakeEvent>;
      return json(res, 200, publicEvent(store(cal, { ...ev, ...body, id: ev.id })));
    }
    if (method === "DELETE" && sub) {
      const ev = cal.events.get(sub);
      if (!ev) return json(res, 404, googleError(404, "notFound", "Not Found"));
      if (ev.status === "cancelled") return json(res, 410, googleError(410, "deleted", "Resource has been deleted"));
      store(cal, { id: ev.id, status: "cancelled", start: ev.start, end: ev.end, extendedProperties: ev.extendedProperties });
      return json(res, 204);
    }
    return json(res, 404, googleError(404, "notFound", "Not Found"));
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const entry: (typeof requests)[number] = { method: req.method ?? "GET", path: url.pathname, query: url.search };
    requests.push(entry);
    res.on("finish", () => (entry.status = res.statusCode));
    try {
      const i = failures.findIndex((f) => !f.match || f.match(entry.method, entry.path));
      if (i >= 0 && url.pathname.startsWith("/calendar/v3/")) {
        const f = failures.splice(i, 1)[0]!;
        const message = f.reason === "rateLimitExceeded" ? "Rate Limit Exceeded" : f.reason;
        return json(res, f.status, googleError(f.status, f.reason, message, f.domain ?? "usageLimits"));
      }
      if (req.method === "GET" && url.pathname === "/o/oauth2/v2/auth") {
        // The consent screen, consented at once: back to the app with a code and the state.
        const redirect = url.searchParams.get("redirect_uri");
        if (url.searchParams.get("client_id") !== clientId || !redirect) return json(res, 400, { error: "invalid_request" });
        const code = `4/fake-${randomBytes(12).toString("hex")}`;
        codes.set(code, {
          redirectUri: redirect,
          scopes: (url.searchParams.get("scope") ?? "").split(" ").filter(Boolean),
          challenge: url.searchParams.get("code_challenge") ?? undefined,
          email,
        });
        const back = new URL(redirect);
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (req.method === "POST" && url.pathname === "/token") return await handleToken(req, res);
      if (req.method === "POST" && url.pathname === "/revoke") {
        const body = new URLSearchParams(await readBody(req));
        const token = url.searchParams.get("token") ?? body.get("token") ?? "";
        const grant = refreshTokens.get(token) ?? refreshTokens.get(accessTokens.get(token)?.refreshToken ?? "");
        if (!grant) return json(res, 400, { error: "invalid_token", error_description: "Token expired or revoked" });
        grant.revoked = true;
        return json(res, 200, {});
      }
      if (url.pathname.startsWith("/calendar/v3/")) return await handleCalendarApi(req, res, url.pathname, url.searchParams);
      json(res, 404, googleError(404, "notFound", "Not Found"));
    } catch (err) {
      json(res, 500, googleError(500, "backendError", (err as Error).message));
    }
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(opts.port ?? 0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    clientId,
    clientSecret,
    email,
    /** What AgentDraft's env should say to use this server. */
    env: {
      GOOGLE_CLIENT_ID: clientId,
      GOOGLE_CLIENT_SECRET: clientSecret,
      GOOGLE_API_ROOT_URL: `${base}/`,
      GOOGLE_OAUTH_AUTH_URL: `${base}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${base}/token`,
      GOOGLE_OAUTH_REVOKE_URL: `${base}/revoke`,
    },
    requests,
    calendars,
    channels,
    addCalendar,
    /** An event made in Google Calendar by someone else. */
    addEvent(
      calendarId: string,
      ev: { id?: string; start: string; end: string; summary?: string; transparency?: "transparent"; allDay?: boolean; privateProperties?: Record<string, string> },
    ) {
      const cal = calendars.get(calendarId)!;
      return publicEvent(
        store(cal, {
          id: ev.id ?? randomBytes(10).toString("hex"),
          summary: ev.summary ?? "busy",
          transparency: ev.transparency,
          ...(ev.privateProperties ? { extendedProperties: { private: ev.privateProperties } } : {}),
          start: ev.allDay ? { date: ev.start } : { dateTime: ev.start },
          end: ev.allDay ? { date: ev.end } : { dateTime: ev.end },
        }),
      );
    },
    moveEvent(calendarId: string, id: string, start: string, end: string) {
      const cal = calendars.get(calendarId)!;
      const ev = cal.events.get(id)!;
      return publicEvent(store(cal, { ...ev, start: { dateTime: start }, end: { dateTime: end } }));
    },
    /** A change made in Google Calendar by a person (attendees, organizer, times, status...). */
    updateEvent(calendarId: string, id: string, patch: Partial<Omit<FakeEvent, "kind" | "id" | "updated" | "etag">>) {
      const cal = calendars.get(calendarId)!;
      const ev = cal.events.get(id)!;
      return publicEvent(store(cal, { ...ev, ...patch, id }));
    },
    deleteEvent(calendarId: string, id: string) {
      const cal = calendars.get(calendarId)!;
      const ev = cal.events.get(id)!;
      store(cal, { id, status: "cancelled", start: ev.start, end: ev.end });
    },
    /** Live (not cancelled) events of a calendar. */
    liveEvents(calendarId: string): FakeEvent[] {
      return [...calendars.get(calendarId)!.events.values()].filter((e) => e.status !== "cancelled").map(publicEvent);
    },
    /** Every sync token issued so far becomes invalid (410 Gone on use). */
    expireSyncTokens() {
      syncTokenFloor = seq + 1;
    },
    setPageSize(n: number) {
      pageSize = n;
    },
    /** The next matching Calendar API request(s) fail with this status and reason. */
    failNext(count: number, failure: Failure) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    pendingFailures: () => failures.length,
    /** The next insert is stored, but its response is lost (the connection drops). */
    loseNextInsertResponse() {
      dropNextInsertResponse = true;
    },
    isRevoked: (refreshToken: string) => refreshTokens.get(refreshToken)?.revoked ?? false,
    refreshTokenCount: () => refreshTokens.size,
    revokeAllAtGoogle() {
      for (const g of refreshTokens.values()) g.revoked = true;
    },
    /** The headers Google sends to a channel's address when its calendar changes. */
    notificationHeaders(channelId: string, state: "sync" | "exists" | "not_exists" = "exists", messageNumber = 2): Record<string, string> {
      const ch = channels.get(channelId)!;
      const h: Record<string, string> = {
        "x-goog-channel-id": ch.id,
        "x-goog-resource-id": ch.resourceId,
        "x-goog-resource-state": state,
        "x-goog-message-number": String(messageNumber),
        "x-goog-resource-uri": `https://www.googleapis.com/calendar/v3/calendars/${encodeURIComponent(ch.calendarId)}/events?alt=json`,
        "x-goog-channel-expiration": new Date(ch.expiration).toUTCString(),
      };
      if (ch.token) h["x-goog-channel-token"] = ch.token;
      return h;
    },
    newChannelId: () => randomUUID(),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
