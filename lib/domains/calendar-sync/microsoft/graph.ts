import { setTimeout as sleep } from "node:timers/promises";
import { and, eq } from "drizzle-orm";
import { queryable } from "../../../../db/transaction";
import { googleConnections, type GoogleConnectionRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { open, seal } from "../../../platform/crypto/secret-box";
import { takeToken } from "../../../platform/api/rate-limit";
import { env } from "../../../platform/config/env";
import { backoffDelayMs } from "../google/quota";
import { MICROSOFT_SCOPES, microsoftConfig, type MicrosoftConfig } from "./config";

/**
 * A failed call to Microsoft: the identity platform (`source: "identity"`, OAuth error codes
 * such as invalid_grant) or Graph (`error.code` such as syncStateNotFound, TooManyRequests).
 */
export class MicrosoftError extends Error {
  constructor(
    readonly source: "identity" | "graph",
    readonly status: number | null,
    readonly code: string | null,
    detail: string,
    readonly retryAfterMs: number | null = null,
  ) {
    const who = source === "identity" ? "The Microsoft identity platform" : "Microsoft Graph";
    super(status ? `${who} answered ${status}${code ? ` ${code}` : ""}: ${detail}` : `Microsoft could not be reached: ${detail}`);
  }
}

export function requireMicrosoftConfig(): MicrosoftConfig {
  const c = microsoftConfig();
  if (!c) throw new AppError("service_unavailable", "Microsoft 365 is not configured: set MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET.");
  return c;
}

const retryAfter = (res: Response) => {
  const s = Number(res.headers.get("retry-after"));
  return Number.isFinite(s) && s >= 0 ? s * 1000 : null;
};

type TokenAnswer = { access_token: string; refresh_token?: string; expires_in?: number; scope?: string };

/** POSTs a grant to the token endpoint (the app's client secret, as a confidential web client). */
export async function tokenRequest(params: Record<string, string>): Promise<TokenAnswer> {
  const c = requireMicrosoftConfig();
  let res: Response;
  try {
    res = await fetch(c.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret, scope: MICROSOFT_SCOPES.join(" "), ...params }),
      signal: AbortSignal.timeout(20_000),
    });
  } catch (err) {
    throw new MicrosoftError("identity", null, null, (err as Error).message);
  }
  const body = (await res.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: string; error_description?: string };
  if (!res.ok || !body.access_token) {
    throw new MicrosoftError("identity", res.status, body.error ?? null, (body.error_description ?? "no access token").split("\n")[0]!, retryAfter(res));
  }
  return body as TokenAnswer;
}

// Access tokens per connection, reused until shortly before they expire. `sealed`: the refresh
// tokens this entry was made from (Microsoft may rotate the refresh token on each use).
const tokens = new Map<string, { sealed: Set<string>; accessToken: string; expiresAt: number }>();
export const forgetToken = (connectionId: string) => tokens.delete(connectionId);

/** An access token for the connection's account, from its sealed refresh token (storing a rotated one sealed). */
export async function accessToken(connection: GoogleConnectionRow): Promise<string> {
  if (connection.status === "revoked" || !connection.refreshTokenSealed) {
    throw new AppError("conflict", `Microsoft connection ${connection.id} is disconnected.`);
  }
  const cached = tokens.get(connection.id);
  if (cached && cached.sealed.has(connection.refreshTokenSealed) && cached.expiresAt > Date.now() + 60_000) return cached.accessToken;
  const answer = await tokenRequest({ grant_type: "refresh_token", refresh_token: open(connection.refreshTokenSealed) });
  const sealed = new Set([connection.refreshTokenSealed]);
  if (answer.refresh_token) {
    const rotated = seal(answer.refresh_token);
    sealed.add(rotated);
    const q = await queryable();
    await q
      .update(googleConnections)
      .set({ refreshTokenSealed: rotated })
      .where(and(eq(googleConnections.id, connection.id), eq(googleConnections.refreshTokenSealed, connection.refreshTokenSealed)));
  }
  tokens.set(connection.id, { sealed, accessToken: answer.access_token, expiresAt: Date.now() + (answer.expires_in ?? 3600) * 1000 });
  return answer.access_token;
}

export const GRAPH_ATTEMPTS = 5;
const THROTTLED = new Set([429, 503, 504]);

type GraphInit = { method?: string; body?: unknown; headers?: Record<string, string>; token?: string };

/**
 * One Graph request as the connection's account. `path` is relative to the Graph base URL,
 * or an absolute @odata.nextLink / deltaLink, which must point at the same Graph origin (the
 * access token is never sent elsewhere). Every call for one connection takes a token from its
 * bucket (in Postgres, so the rate holds across instances); 429/503/504 back off (Retry-After
 * when given, else exponential with jitter) and try again, up to GRAPH_ATTEMPTS times.
 */
export async function graph<T>(connection: GoogleConnectionRow, path: string, init: GraphInit = {}): Promise<T> {
  const c = requireMicrosoftConfig();
  const url = path.startsWith("http") ? path : `${c.graphUrl}${path.startsWith("/") ? "" : "/"}${path}`;
  if (new URL(url).origin !== new URL(c.graphUrl).origin) throw new MicrosoftError("graph", null, null, `refusing to follow a link outside ${new URL(c.graphUrl).origin}`);
  const rate = env().MICROSOFT_RATE_LIMIT_PER_SECOND;
  for (let attempt = 0; ; attempt++) {
    for (;;) {
      const t = await takeToken(`microsoft:${connection.id}`, { rate, burst: Math.max(1, Math.ceil(rate * 2)) });
      if (t.allowed) break;
      await sleep(t.retryAfterMs);
    }
    const bearer = init.token ?? (await accessToken(connection));
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.method ?? "GET",
        headers: { authorization: `Bearer ${bearer}`, accept: "application/json", ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: AbortSignal.timeout(20_000),
      });
    } catch (err) {
      throw new MicrosoftError("graph", null, null, (err as Error).message);
    }
    if (res.ok) return (res.status === 204 ? undefined : await res.json().catch(() => undefined)) as T;
    const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    const failure = new MicrosoftError("graph", res.status, body.error?.code ?? null, body.error?.message ?? res.statusText, retryAfter(res));
    if (res.status === 401 && attempt === 0 && !init.token) {
      forgetToken(connection.id); // an access token revoked early: one fresh try
      continue;
    }
    if (!THROTTLED.has(res.status) || attempt + 1 >= GRAPH_ATTEMPTS) throw failure;
    await sleep(Math.max(backoffDelayMs(attempt, env().MICROSOFT_BACKOFF_BASE_MS), Math.min(failure.retryAfterMs ?? 0, 60_000)));
  }
}

/** A failure as a person reads it. */
export const describeMicrosoft = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The identity platform refused the refresh token (revoked, expired, consent withdrawn): reconnect. */
export const isRevokedGrant = (err: unknown) => err instanceof MicrosoftError && err.source === "identity" && (err.code === "invalid_grant" || err.code === "interaction_required");
