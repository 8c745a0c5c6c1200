import { ErrorCode, LogLevel, WebClient, type ChatPostMessageArguments } from "@slack/web-api";
import type { NotificationChannelKind, NotificationChannelRow } from "../../../db/schema";
import { env } from "../../platform/config/env";
import { checkDestination, isAllowlistedHost, parseAllowlist, SsrfRefusedError } from "../../platform/outbound/ssrf-guard";
import { parseRetryAfter } from "../../platform/outbound/retry-schedule";
import { discordMessage, slackMessage, teamsMessage } from "./formats";
import type { Notice } from "./notice";
import { requestPinnedJson, type JsonResponse } from "./pinned-json";

/** How long one call to a chat app may take. */
export const PROVIDER_TIMEOUT_MS = 15_000;

/**
 * A failed attempt, classified: `permanent` (the app refused this message or the credentials:
 * retrying will not help), `retryAfterMs` (rate limited: the app said when), `skip` (nothing to
 * deliver to: no Slack user has that email). Anything else is retried on the backoff schedule.
 */
export class DeliveryError extends Error {
  override name = "DeliveryError";
  constructor(
    message: string,
    readonly o: { permanent?: boolean; retryAfterMs?: number | null; skip?: boolean } = {},
  ) {
    super(message);
  }
}

/** Where a posted message is at the app, to update it later (Slack: channel + ts; Discord: message id). */
export type ProviderRef = { channel: string | null; ref: string | null };
export type Target = { channel: NotificationChannelRow; secret: string; recipientEmail: string | null };
export type Sender = {
  post(t: Target, n: Notice): Promise<ProviderRef>;
  /** Null when the app cannot edit what it posted (Teams incoming webhooks). */
  update: ((t: Target, ref: ProviderRef, n: Notice) => Promise<void>) | null;
};

// ——— Slack (Web API, bot token) ———

/** Errors after which another try of the same call cannot succeed until an admin acts. */
const SLACK_PERMANENT = new Set([
  "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "no_permission", "missing_scope",
  "channel_not_found", "not_in_channel", "is_archived", "msg_too_long", "invalid_blocks", "restricted_action",
  "team_access_not_granted", "message_not_found", "cant_update_message", "edit_window_closed", "invalid_arguments",
]);

export function slackClient(token: string): WebClient {
  const base = env().SLACK_API_URL;
  return new WebClient(token, {
    slackApiUrl: base.endsWith("/") ? base : `${base}/`,
    // Our own schedule retries (per channel, with backoff), and a 429 becomes an error carrying Retry-After.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: PROVIDER_TIMEOUT_MS,
    logLevel: LogLevel.ERROR,
  });
}

function slackFailure(err: unknown): DeliveryError {
  const e = err as { code?: string; retryAfter?: number; data?: { error?: string }; statusCode?: number; message?: string };
  if (e.code === ErrorCode.RateLimitedError) return new DeliveryError(`Slack rate limit (retry after ${e.retryAfter} s)`, { retryAfterMs: Math.max(1, e.retryAfter ?? 30) * 1000 });
  if (e.code === ErrorCode.PlatformError) {
    const code = e.data?.error ?? "unknown_error";
    if (code === "users_not_found") return new DeliveryError("No Slack user has this member's email.", { skip: true });
    if (code === "ratelimited") return new DeliveryError("Slack rate limit", { retryAfterMs: 30_000 });
    return new DeliveryError(`Slack refused the call: ${code}`, { permanent: SLACK_PERMANENT.has(code) });
  }
  if (e.code === ErrorCode.HTTPError) return new DeliveryError(`Slack answered HTTP ${e.statusCode}`);
  return new DeliveryError(`Could not reach Slack: ${e.message ?? String(err)}`);
}

const slack: Sender = {
  async post(t, n) {
    const client = slackClient(t.secret);
    const msg = slackMessage(n);
    try {
      // A direct message goes to the Slack user with the member's email (users:read.email).
      const channel = t.recipientEmail ? (await client.users.lookupByEmail({ email: t.recipientEmail })).user?.id : t.channel.slackChannelId;
      if (!channel) throw new DeliveryError("No Slack user has this member's email.", { skip: true });
      const args = { channel, text: msg.text, blocks: msg.blocks, unfurl_links: false, unfurl_media: false } as unknown as ChatPostMessageArguments;
      const res = await client.chat.postMessage(args);
      return { channel: res.channel ?? channel, ref: res.ts ?? null };
    } catch (err) {
      throw err instanceof DeliveryError ? err : slackFailure(err);
    }
  },
  async update(t, ref, n) {
    if (!ref.channel || !ref.ref) throw new DeliveryError("The Slack message has no reference to update.", { permanent: true });
    const msg = slackMessage(n);
    try {
      await slackClient(t.secret).chat.update({ channel: ref.channel, ts: ref.ref, text: msg.text, blocks: msg.blocks as never });
    } catch (err) {
      throw slackFailure(err);
    }
  },
};

// ——— Incoming webhooks (Teams, Discord): URLs the admin pasted, so behind the SSRF guard ———

async function sendToWebhook(method: "POST" | "PATCH", url: URL, body: unknown): Promise<JsonResponse> {
  const allow = parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS);
  if (url.protocol !== "https:" && !isAllowlistedHost(allow, url.hostname)) throw new DeliveryError("The webhook URL must be https.", { permanent: true });
  let address: { address: string; family: 4 | 6 };
  try {
    address = await checkDestination(url, allow);
  } catch (err) {
    throw new DeliveryError((err as Error).message, { permanent: err instanceof SsrfRefusedError });
  }
  let res: JsonResponse;
  try {
    res = await requestPinnedJson(method, url, address, body, PROVIDER_TIMEOUT_MS);
  } catch (err) {
    throw new DeliveryError(`Could not send: ${(err as Error).message}`);
  }
  if (res.status >= 200 && res.status < 300) return res;
  if (res.status === 429) {
    const bodyWait = Number((safeJson(res.body) as { retry_after?: number } | null)?.retry_after);
    const header = parseRetryAfter(res.headers["retry-after"] as string | undefined, new Date());
    return Promise.reject(new DeliveryError("Rate limited (HTTP 429)", { retryAfterMs: header ?? (Number.isFinite(bodyWait) ? Math.ceil(bodyWait * 1000) : 30_000) }));
  }
  const detail = res.body.slice(0, 200).replace(/\s+/g, " ").trim();
  throw new DeliveryError(`HTTP ${res.status}${detail ? `: ${detail}` : ""}`, { permanent: res.status >= 400 && res.status < 500 && res.status !== 408 });
}

const safeJson = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
};

const teams: Sender = {
  async post(t, n) {
    await sendToWebhook("POST", new URL(t.secret), teamsMessage(n));
    return { channel: null, ref: null };
  },
  update: null,
};

/** The webhook's URL with `?wait=true` (Discord then answers with the message it created). */
const discordPostUrl = (secret: string) => {
  const url = new URL(secret);
  url.searchParams.set("wait", "true");
  return url;
};
const discordMessageUrl = (secret: string, id: string) => {
  const url = new URL(secret);
  url.pathname = `${url.pathname.replace(/\/$/, "")}/messages/${encodeURIComponent(id)}`;
  url.searchParams.delete("wait");
  return url;
};

const discord: Sender = {
  async post(t, n) {
    const res = await sendToWebhook("POST", discordPostUrl(t.secret), discordMessage(n));
    const id = (safeJson(res.body) as { id?: string } | null)?.id ?? null;
    return { channel: null, ref: typeof id === "string" ? id : null };
  },
  async update(t, ref, n) {
    if (!ref.ref) throw new DeliveryError("The Discord message has no id to update.", { permanent: true });
    await sendToWebhook("PATCH", discordMessageUrl(t.secret, ref.ref), discordMessage(n));
  },
};

export const SENDERS: Record<NotificationChannelKind, Sender> = { slack, teams, discord };
