/**
 * Standard Webhooks verification (https://www.standardwebhooks.com) with Web Crypto, so it
 * runs on Node 20+, Deno, Bun and edge runtimes.
 */

export type WebhookEvent<T = Record<string, unknown>> = {
  /** e.g. hold.preempted, approval.resolved, email.received */
  type: string;
  /** The event id, the same on every delivery attempt: use it to drop duplicates. */
  id: string;
  created_at: string;
  data: T;
  trace_id?: string;
};

export type VerifyOptions = {
  /** How far webhook-timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time (tests). */
  now?: Date;
};

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

function base64Bytes(value: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** `whsec_<base64>` (or the bare base64) → the HMAC key bytes. */
function secretBytes(secret: string): Uint8Array {
  const bytes = base64Bytes(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError("The webhook secret is not a whsec_ base64 secret.");
  return bytes;
}

/** Compares every byte whatever the first difference, so timing reveals nothing about a signature. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

async function hmac(key: Uint8Array, content: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, content as BufferSource));
}

/**
 * Verifies a webhook from AgentDraft on its raw body and returns the event. Throws
 * WebhookVerificationError for missing headers, a timestamp outside the tolerance, or no
 * signature that matches. Pass several secrets to accept any of them (while you rotate);
 * during AgentDraft's own rotation the header carries a signature per secret and either matches.
 */
export async function verifyWebhook<T = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string | string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent<T>> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header.");
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not Unix seconds.");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now: a replay, or a wrong clock.`);
  }

  const body = typeof rawBody === "string" ? new TextEncoder().encode(rawBody) : rawBody;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);

  const candidates = signatures
    .split(" ")
    .map((s) => s.trim().split(","))
    .filter(([version, value]) => version === "v1" && value)
    .map(([, value]) => base64Bytes(value!))
    .filter((b): b is Uint8Array => b !== null);

  let matched = false;
  for (const s of Array.isArray(secret) ? secret : [secret]) {
    const expected = await hmac(secretBytes(s), content);
    // Check every candidate, so timing does not depend on which one matched.
    for (const candidate of candidates) matched = constantTimeEqual(expected, candidate) || matched;
  }
  if (!matched) throw new WebhookVerificationError("No webhook-signature matches: wrong secret, or the body was changed.");

  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError("The webhook body is not JSON.");
  }
}
