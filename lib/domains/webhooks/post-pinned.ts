import http from "node:http";
import https from "node:https";
import { pinnedLookup } from "../../platform/outbound/ssrf-guard";

export type PostResult =
  | { ok: true; status: number; headers: http.IncomingHttpHeaders; latencyMs: number }
  | { ok: false; error: string; latencyMs: number };

/** Keep at most this much of a response body (it is read only to free the socket). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs to `url` connecting only to `address` (already checked by the SSRF guard): the lookup
 * the socket uses returns that address whatever DNS says now, so a rebinding answer is never
 * used. Host header and TLS SNI keep the URL's host name. Redirects are not followed (node's
 * http client never does), and the whole exchange must finish within `timeoutMs`.
 */
export function postPinned(
  url: URL,
  address: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const client = url.protocol === "https:" ? https : http;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "AgentDraft-Webhooks/1" },
        lookup: pinnedLookup(address),
        agent: false,
      },
      (res) => {
        let seen = 0;
        res.on("data", (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_RESPONSE_BYTES) res.destroy();
        });
        const done = () => finish({ ok: true, status: res.statusCode ?? 0, headers: res.headers, latencyMs: latency() });
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, error: `timed out after ${timeoutMs} ms`, latencyMs: latency() });
      req.destroy();
    }, timeoutMs);
    req.on("error", (err) => finish({ ok: false, error: err.message, latencyMs: latency() }));
    req.end(body);
  });
}
