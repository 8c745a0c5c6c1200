import { AppError } from "../../platform/errors";
import { env } from "../../platform/config/env";

/** How long the whole download may take (a stalled CDN answer makes Resend retry the webhook). */
const DOWNLOAD_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 3;

/** Where Resend serves a received message's raw MIME: its own hosts (inbound-cdn.resend.com), or RESEND_BASE_URL's host. */
export function isResendHost(url: URL): boolean {
  const base = env().RESEND_BASE_URL;
  if (base && new URL(base).host === url.host) return true;
  return url.protocol === "https:" && (url.hostname === "resend.com" || url.hostname.endsWith(".resend.com"));
}

export type Download = { kind: "ok"; raw: Buffer } | { kind: "too_large"; bytes: number };

const unavailable = (detail: string) => new AppError("service_unavailable", detail, {}, { "retry-after": "30" });

/**
 * Downloads a received message from Resend's signed `raw.download_url`, bounded by
 * RESEND_INBOUND_MAX_BYTES rather than by a request-body limit: streamed, and cut as soon as it
 * passes the limit (a declared Content-Length over it is not even read). Redirects are followed
 * only to Resend's hosts; the API key is never sent (the URL is signed).
 */
export async function downloadFromResend(downloadUrl: string, limit = env().RESEND_INBOUND_MAX_BYTES): Promise<Download> {
  let url = new URL(downloadUrl);
  const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  for (let hop = 0; ; hop++) {
    if (!isResendHost(url)) throw unavailable(`Resend's raw download points to ${url.host}, which is not Resend's: not fetched.`);
    const res = await fetch(url, { redirect: "manual", signal }).catch((err: Error) => {
      throw unavailable(`Could not download the raw message from Resend: ${err.message}`);
    });
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw unavailable("Resend's raw download redirected too many times.");
      url = new URL(res.headers.get("location")!, url);
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw unavailable(`Could not download the raw message from Resend (HTTP ${res.status}).`);
    }
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      await res.body?.cancel();
      return { kind: "too_large", bytes: declared };
    }
    return readBounded(res, limit);
  }
}

async function readBounded(res: Response, limit: number): Promise<Download> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch((err: Error) => {
      throw unavailable(`The raw message's download from Resend broke off: ${err.message}`);
    });
    if (done) return { kind: "ok", raw: Buffer.concat(chunks, bytes) };
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel();
      return { kind: "too_large", bytes };
    }
    chunks.push(value);
  }
}
