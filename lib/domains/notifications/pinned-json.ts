import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";

export type JsonResponse = { status: number; headers: http.IncomingHttpHeaders; body: string };

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Sends JSON to `url` connecting only to `address` (already checked by the SSRF guard, as
 * webhook delivery does: lib/domains/webhooks/post-pinned.ts), and reads a bounded JSON answer (Discord
 * returns the message it created). No redirects; the whole exchange within `timeoutMs`.
 */
export function requestPinnedJson(method: "POST" | "PATCH", url: URL, address: { address: string; family: 4 | 6 }, body: unknown, timeoutMs: number): Promise<JsonResponse> {
  const payload = JSON.stringify(body);
  const lookup = ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [address]);
    else cb(null, address.address, address.family);
  }) as unknown as LookupFunction;
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)), "user-agent": "AgentDraft-Notifications/1" },
        lookup,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let seen = 0;
        res.on("data", (c: Buffer) => {
          seen += c.length;
          if (seen <= MAX_RESPONSE_BYTES) chunks.push(c);
        });
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}
