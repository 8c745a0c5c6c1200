import http from "node:http";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the Microsoft identity platform (v2.0 authorize and token endpoints)
 * and the Microsoft Graph calendar API, speaking their HTTP protocol for what AgentDraft uses:
 * PKCE code exchange and refresh (with rotation), /me, /me/mailboxSettings, /me/calendars,
 * calendarView/delta paged by @odata.nextLink up to an @odata.deltaLink (recurring series
 * expanded into occurrences, removals as `@removed`), events with single-value extended
 * properties ($filter on them as Graph documents it, $expand, transactionId idempotence), and /subscriptions with the
 * validationToken handshake against the notification URL, change and lifecycle notifications.
 * Listens on 127.0.0.1 only. Hooks inject 429s (Retry-After), 410 syncStateNotFound and lost answers.
 */

type DateTimeTimeZone = { dateTime: string; timeZone: string };
type Property = { id: string; value: string };
export type FakeOutlookEvent = {
  id: string;
  subject?: string;
  showAs?: "free" | "tentative" | "busy" | "oof" | "workingElsewhere" | "unknown";
  isAllDay?: boolean;
  isCancelled?: boolean;
  responseStatus?: { response: string; time?: string };
  start: DateTimeTimeZone;
  end: DateTimeTimeZone;
  originalStartTimeZone?: string;
  /** A daily series of `count` occurrences (calendarView lists each, with its own id). */
  recurrence?: { count: number };
  singleValueExtendedProperties?: Property[];
  transactionId?: string;
  organizer?: { emailAddress: { address: string; name?: string } };
  attendees?: { type: "required" | "optional" | "resource"; emailAddress: { address: string }; status: { response: string; time?: string } }[];
  lastModifiedDateTime?: string;
};
type Stored = FakeOutlookEvent & { seq: number; removed: boolean };
type FakeCalendarRow = { id: string; name: string; isDefaultCalendar: boolean; canEdit: boolean; events: Map<string, Stored> };
type Subscription = { id: string; resource: string; calendarId: string; notificationUrl: string; lifecycleNotificationUrl?: string; clientState?: string; expirationDateTime: string; deleted: boolean };
type Failure = { status: number; code: string; retryAfter?: number; match?: (method: string, path: string) => boolean };

const json = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  if (body === undefined) return void res.writeHead(status, headers).end();
  res.writeHead(status, { "content-type": "application/json; odata.metadata=minimal", ...headers }).end(JSON.stringify(body));
};
const graphError = (res: http.ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(res, status, { error: { code, message, innerError: { "request-id": randomUUID(), date: new Date().toISOString() } } }, headers);
const oauthError = (res: http.ServerResponse, status: number, error: string, description: string) =>
  json(res, status, { error, error_description: `AADSTS00000: ${description}\r\nTrace ID: ${randomUUID()}`, error_codes: [0] });

const GRAPH_SCOPE = (s: string) => (["offline_access", "openid", "profile", "email"].includes(s) ? s : `https://graph.microsoft.com/${s}`);
const DAY = 86_400_000;

/**
 * Graph's filter on a single-value extended property, as documented: `ep/id eq '…'` names the
 * property (the Name part case-sensitive, the type and property set not), and a string value is
 * compared with eq, ne (null: the property is there at all), startswith or contains, case-
 * insensitively. Returns the test on an event's properties, or null for any other filter (Graph's 400).
 */
function propertyFilter(filter: string): ((props: Property[]) => boolean) | null {
  const lit = `'((?:[^']|'')*)'`;
  const m = new RegExp(`^singleValueExtendedProperties/Any\\(ep: ep/id eq ${lit} and (?:ep/value (eq|ne) (?:${lit}|(null))|(startswith|contains)\\(ep/value, ?${lit}\\))\\)$`).exec(filter);
  if (!m) return null;
  const unquote = (x: string) => x.replace(/''/g, "'");
  const id = unquote(m[1]!);
  const op = (m[2] ?? m[5])!;
  const value = m[3] !== undefined ? unquote(m[3]).toLowerCase() : m[6] !== undefined ? unquote(m[6]).toLowerCase() : null;
  const split = (pid: string) => {
    const at = pid.indexOf(" Name ");
    return at < 0 ? [pid.toLowerCase(), ""] : [pid.slice(0, at).toLowerCase(), pid.slice(at)];
  };
  const [head, name] = split(id);
  const sameId = (pid: string) => {
    const [h, n] = split(pid);
    return h === head && n === name;
  };
  const test = (v: string) => {
    const x = v.toLowerCase();
    if (op === "eq") return x === value;
    if (op === "ne") return value === null || x !== value;
    if (op === "startswith") return x.startsWith(value!);
    return x.includes(value!);
  };
  return (props) => props.some((p) => sameId(p.id) && test(p.value));
}

export type FakeMicrosoft = Awaited<ReturnType<typeof startFakeMicrosoft>>;

export async function startFakeMicrosoft(opts: { email?: string; clientId?: string; clientSecret?: string; port?: number; tenant?: string; mailboxTimeZone?: string } = {}) {
  const clientId = opts.clientId ?? "00000000-0000-0000-0000-fakeclient01";
  const clientSecret = opts.clientSecret ?? "fake~microsoft~secret";
  const email = opts.email ?? "ops@contoso.example";
  const tenant = opts.tenant ?? "common";
  let mailboxTimeZone = opts.mailboxTimeZone ?? "UTC";

  let seq = 0;
  /** Delta tokens issued before this sequence are refused with 410 syncStateNotFound. */
  let deltaFloor = 0;
  const calendars = new Map<string, FakeCalendarRow>();
  const subscriptions = new Map<string, Subscription>();
  const codes = new Map<string, { redirectUri: string; scopes: string[]; challenge: string }>();
  const refreshTokens = new Map<string, { scopes: string[]; revoked: boolean }>();
  const accessTokens = new Map<string, { refreshToken: string; expires: number }>();
  const failures: Failure[] = [];
  const requests: { method: string; path: string; query: string; status?: number }[] = [];
  const validations: { url: string; ok: boolean }[] = [];
  let dropNextCreateResponse = false;
  let rotateRefreshTokens = true;
  let grantScopes: string[] | null = null;
  let pageSize = 1000;

  const addCalendar = (id: string, name: string, isDefaultCalendar = false, canEdit = true) => {
    const cal: FakeCalendarRow = { id, name, isDefaultCalendar, canEdit, events: new Map() };
    calendars.set(id, cal);
    return cal;
  };
  const primaryId = `AAMkAD${Buffer.from(email).toString("base64url")}`;
  addCalendar(primaryId, "Calendar", true);

  const store = (cal: FakeCalendarRow, ev: FakeOutlookEvent) => {
    seq += 1;
    const stored: Stored = { showAs: "busy", ...ev, lastModifiedDateTime: new Date().toISOString(), seq, removed: false };
    cal.events.set(stored.id, stored);
    return stored;
  };

  const encode = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const decode = <T>(s: string | null): T | null => {
    try {
      return s ? (JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as T) : null;
    } catch {
      return null;
    }
  };

  async function readBody(req: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  const bearerOk = (req: http.IncomingMessage) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    const at = m && accessTokens.get(m[1]!);
    if (!at || at.expires < Date.now()) return false;
    const grant = refreshTokens.get(at.refreshToken);
    return Boolean(grant && !grant.revoked);
  };

  const issue = (scopes: string[]) => {
    const refresh = `M.R3_fake.${randomBytes(24).toString("base64url")}`;
    refreshTokens.set(refresh, { scopes, revoked: false });
    const access = `eyJ0eXAi.fake.${randomBytes(24).toString("base64url")}`;
    accessTokens.set(access, { refreshToken: refresh, expires: Date.now() + 3600_000 });
    return { access, refresh };
  };

  async function handleToken(req: http.IncomingMessage, res: http.ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    if (form.get("client_id") !== clientId) return oauthError(res, 400, "unauthorized_client", "Application not found in the directory.");
    if (form.get("client_secret") !== clientSecret) return oauthError(res, 401, "invalid_client", "Invalid client secret provided.");
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      if (!code) return oauthError(res, 400, "invalid_grant", "The provided authorization code is invalid or expired.");
      codes.delete(form.get("code")!);
      if (code.redirectUri !== form.get("redirect_uri")) return oauthError(res, 400, "invalid_grant", "The redirect URI does not match the one the code was issued to.");
      if (createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url") !== code.challenge) {
        return oauthError(res, 400, "invalid_grant", "The code_verifier does not match the code_challenge supplied in the authorization request.");
      }
      const scopes = grantScopes ?? code.scopes;
      const t = issue(scopes);
      return json(res, 200, {
        token_type: "Bearer",
        scope: scopes.map(GRAPH_SCOPE).filter((s) => s !== "offline_access").join(" "),
        expires_in: 3600,
        ext_expires_in: 3600,
        access_token: t.access,
        ...(scopes.includes("offline_access") ? { refresh_token: t.refresh } : {}),
      });
    }
    if (grantType === "refresh_token") {
      const old = form.get("refresh_token") ?? "";
      const grant = refreshTokens.get(old);
      if (!grant || grant.revoked) return oauthError(res, 400, "invalid_grant", "The refresh token has expired or is invalid due to sign-in frequency checks by conditional access.");
      const t = issue(grant.scopes);
      if (!rotateRefreshTokens) {
        refreshTokens.delete(t.refresh);
        accessTokens.set(t.access, { refreshToken: old, expires: Date.now() + 3600_000 });
      }
      return json(res, 200, { token_type: "Bearer", scope: grant.scopes.map(GRAPH_SCOPE).join(" "), expires_in: 3600, access_token: t.access, ...(rotateRefreshTokens ? { refresh_token: t.refresh } : {}) });
    }
    return oauthError(res, 400, "unsupported_grant_type", `The grant type ${grantType} is not supported.`);
  }

  /** The occurrences a stored event stands for in calendarView (a series expands; a single event is itself). */
  const occurrences = (ev: Stored): Stored[] => {
    if (!ev.recurrence) return [ev];
    const shift = (t: DateTimeTimeZone, days: number) => ({ ...t, dateTime: new Date(Date.parse(`${t.dateTime.replace(/Z$/, "")}Z`) + days * DAY).toISOString().replace("Z", "0000") });
    return Array.from({ length: ev.recurrence.count }, (_, i) => ({ ...ev, id: `${ev.id}_occ${i}`, start: shift(ev.start, i), end: shift(ev.end, i), recurrence: undefined }));
  };

  const view = (ev: Stored, type: string) => {
    const { seq: _s, removed: _r, recurrence: _rec, transactionId: _t, singleValueExtendedProperties: _p, ...rest } = ev;
    return { "@odata.etag": `W/"${ev.seq}"`, ...rest, type, start: { ...ev.start, timeZone: ev.start.timeZone ?? "UTC" }, end: { ...ev.end, timeZone: ev.end.timeZone ?? "UTC" } };
  };

  const inWindow = (ev: Stored, from: number, to: number) => {
    const s = Date.parse(`${ev.start.dateTime.replace(/Z$/, "")}Z`);
    const e = Date.parse(`${ev.end.dateTime.replace(/Z$/, "")}Z`);
    return e > from && s < to;
  };

  type DeltaState = { cal: string; since: number; upto: number; from: number; to: number; offset: number };

  function handleDelta(cal: FakeCalendarRow, url: URL, req: http.IncomingMessage, res: http.ServerResponse) {
    const origin = `http://${req.headers.host}`;
    const base = `${origin}/v1.0/me/calendars/${encodeURIComponent(cal.id)}/calendarView/delta`;
    const maxPage = Math.min(pageSize, Number(/odata\.maxpagesize=(\d+)/.exec(String(req.headers.prefer ?? ""))?.[1] ?? 100));
    let st: DeltaState | null;
    if (url.searchParams.has("$deltatoken")) {
      st = decode<DeltaState>(url.searchParams.get("$deltatoken"));
      if (!st || st.cal !== cal.id || st.since < deltaFloor) return graphError(res, 410, "syncStateNotFound", "The sync state generation is not found.");
      st = { ...st, since: st.upto, upto: seq, offset: 0 };
    } else if (url.searchParams.has("$skiptoken")) {
      st = decode<DeltaState>(url.searchParams.get("$skiptoken"));
      if (!st || st.cal !== cal.id) return graphError(res, 400, "badRequest", "Invalid skip token.");
    } else {
      const from = Date.parse(url.searchParams.get("startDateTime") ?? "");
      const to = Date.parse(url.searchParams.get("endDateTime") ?? "");
      if (Number.isNaN(from) || Number.isNaN(to)) return graphError(res, 400, "ErrorInvalidParameter", "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.");
      st = { cal: cal.id, since: 0, upto: seq, from, to, offset: 0 };
    }
    const changed = [...cal.events.values()].filter((e) => e.seq > st!.since && e.seq <= st!.upto).sort((a, b) => a.seq - b.seq);
    const entries = changed.flatMap((ev) =>
      occurrences(ev)
        .filter((o) => ev.removed || inWindow(o, st!.from, st!.to) || st!.since > 0)
        .map((o) => (ev.removed || !inWindow(o, st!.from, st!.to) ? (st!.since > 0 ? { "@removed": { reason: "deleted" }, id: o.id } : null) : view(o, ev.recurrence ? "occurrence" : "singleInstance"))),
    ).filter((x) => x !== null);
    const page = entries.slice(st.offset, st.offset + maxPage);
    const more = st.offset + maxPage < entries.length;
    const link = more
      ? { "@odata.nextLink": `${base}?$skiptoken=${encode({ ...st, offset: st.offset + maxPage })}` }
      : { "@odata.deltaLink": `${base}?$deltatoken=${encode({ ...st, since: st.upto, offset: 0 })}` };
    return json(res, 200, { "@odata.context": `${origin}/v1.0/$metadata#Collection(event)`, value: page, ...link });
  }

  async function validate(url: string): Promise<boolean> {
    const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomUUID()}`;
    try {
      const res = await fetch(`${url}${url.includes("?") ? "&" : "?"}validationToken=${encodeURIComponent(token)}`, { method: "POST", headers: { "content-type": "text/plain; charset=utf-8" }, body: "", signal: AbortSignal.timeout(10_000) });
      const ok = res.status === 200 && (res.headers.get("content-type") ?? "").startsWith("text/plain") && (await res.text()) === token;
      validations.push({ url, ok });
      return ok;
    } catch {
      validations.push({ url, ok: false });
      return false;
    }
  }

  async function handleGraph(method: string, path: string, url: URL, req: http.IncomingMessage, res: http.ServerResponse) {
    if (path === "/me" && method === "GET") return json(res, 200, { id: randomUUID(), displayName: "Ops", mail: email, userPrincipalName: email });
    if (path === "/me/mailboxSettings/timeZone" && method === "GET") return json(res, 200, { value: mailboxTimeZone });
    if (path === "/me/calendars" && method === "GET") {
      return json(res, 200, { value: [...calendars.values()].map((c) => ({ id: c.id, name: c.name, isDefaultCalendar: c.isDefaultCalendar, canEdit: c.canEdit })) });
    }
    let m = /^\/me\/calendars\/([^/]+)\/calendarView\/delta$/.exec(path);
    if (m && method === "GET") {
      const cal = calendars.get(decodeURIComponent(m[1]!));
      return cal ? handleDelta(cal, url, req, res) : graphError(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
    }
    m = /^\/me\/calendars\/([^/]+)\/calendarView$/.exec(path);
    if (m && method === "GET") {
      // calendarView over a window (occurrences expanded), $expand of single-value extended
      // properties filtered by id, paged by @odata.nextLink ($skip); deleted events are gone.
      const cal = calendars.get(decodeURIComponent(m[1]!));
      if (!cal) return graphError(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
      const from = Date.parse(url.searchParams.get("startDateTime") ?? "");
      const to = Date.parse(url.searchParams.get("endDateTime") ?? "");
      if (Number.isNaN(from) || Number.isNaN(to)) return graphError(res, 400, "ErrorInvalidParameter", "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.");
      const expand = /singleValueExtendedProperties\(\$filter=id eq '((?:[^']|'')*)'\)/.exec(url.searchParams.get("$expand") ?? "");
      const wanted = expand ? expand[1]!.replace(/''/g, "'").toLowerCase() : null;
      const top = Math.min(Number(url.searchParams.get("$top") ?? 10) || 10, pageSize);
      const skip = Number(url.searchParams.get("$skip") ?? 0) || 0;
      const all = [...cal.events.values()]
        .filter((e) => !e.removed)
        .sort((a, b) => a.seq - b.seq)
        .flatMap((ev) => occurrences(ev).filter((o) => inWindow(o, from, to)).map((o) => ({ o, type: ev.recurrence ? "occurrence" : "singleInstance" })));
      const page = all.slice(skip, skip + top).map(({ o, type }) => {
        const props = wanted ? (o.singleValueExtendedProperties ?? []).filter((p) => p.id.toLowerCase() === wanted) : [];
        return { ...view(o, type), ...(props.length ? { singleValueExtendedProperties: props } : {}) };
      });
      const nextUrl = new URL(url.toString().replace(/^http:\/\/[^/]+/, `http://${req.headers.host}`));
      nextUrl.searchParams.set("$skip", String(skip + top));
      return json(res, 200, { value: page, ...(skip + top < all.length ? { "@odata.nextLink": nextUrl.toString() } : {}) });
    }
    m = /^\/me\/calendars\/([^/]+)\/events$/.exec(path);
    if (m) {
      const cal = calendars.get(decodeURIComponent(m[1]!));
      if (!cal) return graphError(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
      if (method === "GET") {
        // The calendar's events, no window: a series once, as its master (type seriesMaster),
        // $filter on a single-value extended property as Graph documents it (propertyFilter),
        // $select (id and @odata.etag always), $expand of properties by id, $top and $skip, @odata.nextLink.
        const filter = url.searchParams.get("$filter");
        const matches = filter === null ? () => true : propertyFilter(filter);
        if (!matches) return graphError(res, 400, "ErrorInvalidUrlQueryFilter", "The query filter contains one or more invalid nodes.");
        const found = [...cal.events.values()].filter((e) => !e.removed && matches(e.singleValueExtendedProperties ?? [])).sort((a, b) => a.seq - b.seq);
        const expand = /singleValueExtendedProperties\(\$filter=id eq '((?:[^']|'')*)'\)/.exec(url.searchParams.get("$expand") ?? "");
        const wanted = expand ? expand[1]!.replace(/''/g, "'").toLowerCase() : null;
        const select = url.searchParams.get("$select")?.split(",").map((x) => x.trim());
        const top = Math.min(Number(url.searchParams.get("$top") ?? 10) || 10, pageSize);
        const skip = Number(url.searchParams.get("$skip") ?? 0) || 0;
        const page = found.slice(skip, skip + top).map((e) => {
          const full: Record<string, unknown> = view(e, e.recurrence ? "seriesMaster" : "singleInstance");
          const shown = select ? Object.fromEntries(Object.entries(full).filter(([k]) => k === "id" || k === "@odata.etag" || select.includes(k))) : full;
          const props = wanted ? (e.singleValueExtendedProperties ?? []).filter((p) => p.id.toLowerCase() === wanted) : [];
          return { ...shown, ...(props.length ? { singleValueExtendedProperties: props } : {}) };
        });
        const nextUrl = new URL(url.toString().replace(/^http:\/\/[^/]+/, `http://${req.headers.host}`));
        nextUrl.searchParams.set("$skip", String(skip + top));
        return json(res, 200, { value: page, ...(skip + top < found.length ? { "@odata.nextLink": nextUrl.toString() } : {}) });
      }
      if (method === "POST") {
        const body = JSON.parse(await readBody(req)) as FakeOutlookEvent;
        const again = body.transactionId && [...cal.events.values()].find((e) => !e.removed && e.transactionId === body.transactionId);
        const stored = again || store(cal, { ...body, id: `AAMkAGI${randomBytes(18).toString("base64url")}=` });
        if (dropNextCreateResponse) {
          dropNextCreateResponse = false;
          res.destroy();
          return;
        }
        return json(res, 201, view(stored, "singleInstance"));
      }
    }
    m = /^\/me\/calendars\/([^/]+)\/events\/([^/]+)$/.exec(path);
    if (m && method === "GET") {
      // One event ($expand of single-value extended properties by id); a deleted one is not found.
      const cal = calendars.get(decodeURIComponent(m[1]!));
      const ev = cal?.events.get(decodeURIComponent(m[2]!));
      if (!cal || !ev || ev.removed) return graphError(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
      const expand = /singleValueExtendedProperties\(\$filter=id eq '((?:[^']|'')*)'\)/.exec(url.searchParams.get("$expand") ?? "");
      const wanted = expand ? expand[1]!.replace(/''/g, "'").toLowerCase() : null;
      const props = wanted ? (ev.singleValueExtendedProperties ?? []).filter((p) => p.id.toLowerCase() === wanted) : [];
      return json(res, 200, { ...view(ev, "singleInstance"), ...(props.length ? { singleValueExtendedProperties: props } : {}) });
    }
    if (m && method === "PATCH") {
      // The fields sent replace the stored ones; a removed event is not found.
      const cal = calendars.get(decodeURIComponent(m[1]!));
      const ev = cal?.events.get(decodeURIComponent(m[2]!));
      if (!cal || !ev || ev.removed) return graphError(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
      const body = JSON.parse(await readBody(req)) as Partial<FakeOutlookEvent>;
      const { seq: _s, removed: _r, lastModifiedDateTime: _l, ...kept } = ev;
      return json(res, 200, view(store(cal, { ...kept, ...body, id: ev.id }), "singleInstance"));
    }
    if (m && method === "DELETE") {
      const cal = calendars.get(decodeURIComponent(m[1]!));
      const ev = cal?.events.get(decodeURIComponent(m[2]!));
      if (!cal || !ev || ev.removed) return graphError(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
      seq += 1;
      ev.removed = true;
      ev.seq = seq;
      return json(res, 204);
    }
    if (path === "/subscriptions" && method === "POST") {
      const body = JSON.parse(await readBody(req)) as Omit<Subscription, "id" | "calendarId" | "deleted">;
      const cm = /^\/?me\/calendars\/([^/]+)\/events$/.exec(body.resource ?? "");
      if (!cm || !calendars.has(cm[1]!)) return graphError(res, 400, "InvalidRequest", "Resource not found for the segment.");
      if (!body.notificationUrl || Date.parse(body.expirationDateTime) > Date.now() + 4230 * 60_000) return graphError(res, 400, "InvalidRequest", "Subscription expiration can only be 4230 minutes in the future.");
      for (const u of new Set([body.notificationUrl, body.lifecycleNotificationUrl].filter((x): x is string => Boolean(x)))) {
        if (!(await validate(u))) return graphError(res, 400, "ValidationError", "Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.");
      }
      const sub: Subscription = { ...body, id: randomUUID(), calendarId: cm[1]!, deleted: false };
      subscriptions.set(sub.id, sub);
      const { clientState: _c, calendarId: _k, deleted: _d, ...shown } = sub;
      return json(res, 201, shown);
    }
    m = /^\/subscriptions\/([^/]+)$/.exec(path);
    if (m) {
      const sub = subscriptions.get(decodeURIComponent(m[1]!));
      if (!sub || sub.deleted) return graphError(res, 404, "ResourceNotFound", "The object was not found.");
      if (method === "PATCH") {
        const body = JSON.parse(await readBody(req)) as { expirationDateTime: string };
        sub.expirationDateTime = body.expirationDateTime;
        const { clientState: _c, calendarId: _k, deleted: _d, ...shown } = sub;
        return json(res, 200, shown);
      }
      if (method === "DELETE") {
        sub.deleted = true;
        return json(res, 204);
      }
    }
    return graphError(res, 404, "UnknownError", `No fake for ${method} ${path}`);
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = req.method ?? "GET";
    const entry: (typeof requests)[number] = { method, path: url.pathname, query: url.search };
    requests.push(entry);
    res.on("finish", () => (entry.status = res.statusCode));
    try {
      if (url.pathname === `/${tenant}/oauth2/v2.0/authorize` && method === "GET") {
        const p = url.searchParams;
        if (p.get("client_id") !== clientId) return oauthError(res, 400, "unauthorized_client", "Application not found.");
        if (p.get("response_type") !== "code" || p.get("code_challenge_method") !== "S256" || !p.get("code_challenge")) return oauthError(res, 400, "invalid_request", "PKCE (S256) and response_type=code are required.");
        const code = `0.fakecode.${randomBytes(16).toString("base64url")}`;
        codes.set(code, { redirectUri: p.get("redirect_uri")!, scopes: (p.get("scope") ?? "").split(" ").filter(Boolean), challenge: p.get("code_challenge")! });
        const back = new URL(p.get("redirect_uri")!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", p.get("state") ?? "");
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (url.pathname === `/${tenant}/oauth2/v2.0/token` && method === "POST") return await handleToken(req, res);
      if (!url.pathname.startsWith("/v1.0/")) return graphError(res, 404, "NotFound", "Unknown path.");
      const path = url.pathname.slice("/v1.0".length);
      const fail = failures.findIndex((f) => !f.match || f.match(method, path));
      if (fail >= 0) {
        const [f] = failures.splice(fail, 1);
        return graphError(res, f!.status, f!.code, `Injected ${f!.code}.`, f!.retryAfter !== undefined ? { "retry-after": String(f!.retryAfter) } : {});
      }
      if (!bearerOk(req)) return graphError(res, 401, "InvalidAuthenticationToken", "Access token is empty or invalid.");
      return await handleGraph(method, path, url, req, res);
    } catch (err) {
      graphError(res, 500, "generalException", (err as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  /** Posts a notification collection to a subscription's URL, as Graph does (clientState echoed unless overridden). */
  async function post(sub: Subscription, item: Record<string, unknown>, to = sub.notificationUrl) {
    const body = { value: [{ subscriptionId: sub.id, clientState: sub.clientState, tenantId: randomUUID(), subscriptionExpirationDateTime: sub.expirationDateTime, ...item }] };
    const res = await fetch(to, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) };
  }
  const liveSubscriptionOf = (calendarId: string) => [...subscriptions.values()].find((s) => s.calendarId === calendarId && !s.deleted);

  return {
    origin,
    email,
    primaryId,
    calendars,
    subscriptions,
    requests,
    validations,
    env: {
      MICROSOFT_CLIENT_ID: clientId,
      MICROSOFT_CLIENT_SECRET: clientSecret,
      MICROSOFT_TENANT: tenant,
      MICROSOFT_AUTHORITY_URL: origin,
      MICROSOFT_GRAPH_URL: `${origin}/v1.0`,
    },
    addCalendar,
    setPageSize: (n: number) => void (pageSize = n),
    setMailboxTimeZone: (zone: string) => void (mailboxTimeZone = zone),
    addEvent(calendarId: string, ev: FakeOutlookEvent) {
      const cal = calendars.get(calendarId) ?? addCalendar(calendarId, calendarId);
      return store(cal, ev);
    },
    updateEvent(calendarId: string, id: string, patch: Partial<FakeOutlookEvent>) {
      const cal = calendars.get(calendarId)!;
      return store(cal, { ...cal.events.get(id)!, ...patch, id });
    },
    removeEvent(calendarId: string, id: string) {
      const ev = calendars.get(calendarId)!.events.get(id)!;
      seq += 1;
      ev.removed = true;
      ev.seq = seq;
    },
    /** Live (not removed) events of a calendar, extended properties included. */
    liveEvents: (calendarId: string) => [...(calendars.get(calendarId)?.events.values() ?? [])].filter((e) => !e.removed),
    /** Every delta token issued so far becomes invalid (410 syncStateNotFound). */
    expireDeltaTokens: () => void (deltaFloor = seq + 1),
    failNext: (f: Failure) => void failures.push(f),
    dropNextCreateResponse: () => void (dropNextCreateResponse = true),
    setRotateRefreshTokens: (on: boolean) => void (rotateRefreshTokens = on),
    /** The scopes the next code exchange grants, whatever was asked (null: what was asked). */
    grantOnly: (scopes: string[] | null) => void (grantScopes = scopes),
    revokeAll: () => refreshTokens.forEach((g) => (g.revoked = true)),
    liveSubscriptionOf,
    notifyChange: (calendarId: string, overrides: Record<string, unknown> = {}) => post(liveSubscriptionOf(calendarId)!, { changeType: "updated", resource: `Users/x/Events/y`, ...overrides }),
    notifyLifecycle: (calendarId: string, lifecycleEvent: "reauthorizationRequired" | "subscriptionRemoved" | "missed") => {
      const sub = liveSubscriptionOf(calendarId)!;
      if (lifecycleEvent === "subscriptionRemoved") sub.deleted = true;
      return post(sub, { lifecycleEvent }, sub.lifecycleNotificationUrl ?? sub.notificationUrl);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
