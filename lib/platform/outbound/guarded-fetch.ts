import http from "node:http";
import https from "node:https";
import { env } from "../config/env";
import { checkDestination, isAllowlistedHost, parseAllowlist, pinnedLookup, systemResolver, type Resolver } from "./ssrf-guard";

export const GUARDED_FETCH_TIMEOUT_MS = 10_000;
export const GUARDED_FETCH_MAX_BYTES = 1024 * 1024;

/** Whether plain http may be used for this URL: only for hosts on the operator's WEBHOOK_ALLOWED_HOSTS (tests, local identity providers). */
export function insecureAllowed(url: URL): boolean {
  return isAllowlistedHost(parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS), url.hostname);
}

/**
 * A fetch for URLs a workspace admin typed (an identity provider's endpoints): the host is
 * resolved and checked by the SSRF guard (private, loopback and link-local addresses refused
 * unless allowlisted in WEBHOOK_ALLOWED_HOSTS), the connection goes to that one address, https
 * unless allowlisted, no redirects followed, the answer within 10 s and 1 MiB.
 */
export async function guardedFetch(
  input: string | URL,
  init: { method?: string; headers?: Record<string, string> | Headers; body?: unknown; signal?: AbortSignal | null } = {},
  resolve: Resolver = systemResolver,
): Promise<Response> {
  const url = new URL(input);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && insecureAllowed(url))) {
    throw new TypeError(`${url.origin} is not https (plain http only for hosts on the operator's WEBHOOK_ALLOWED_HOSTS)`);
  }
  const address = await checkDestination(url, parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS), resolve);
  const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers) : { ...init.headers };
  const body = init.body === undefined || init.body === null ? undefined : init.body instanceof URLSearchParams ? init.body.toString() : typeof init.body === "string" ? init.body : null;
  if (body === null) throw new TypeError("guardedFetch sends only string or form bodies");
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolvePromise, reject) => {
    const req = client.request(url, { method: init.method ?? "GET", headers: { "user-agent": "AgentDraft-SSO/1", ...headers }, lookup: pinnedLookup(address), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let seen = 0;
      res.on("data", (c: Buffer) => {
        seen += c.length;
        if (seen > GUARDED_FETCH_MAX_BYTES) {
          res.destroy();
          reject(new Error(`${url.origin} answered more than ${GUARDED_FETCH_MAX_BYTES} bytes`));
        } else chunks.push(c);
      });
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) for (const one of v) h.append(k, one);
          else if (v !== undefined) h.set(k, v);
        }
        const status = res.statusCode ?? 502;
        const nullBody = status === 204 || status === 304;
        resolvePromise(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: h }));
      });
      res.on("error", reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`${url.origin} did not answer within ${GUARDED_FETCH_TIMEOUT_MS} ms`)), GUARDED_FETCH_TIMEOUT_MS);
    req.on("close", () => clearTimeout(timer));
    req.on("error", reject);
    init.signal?.addEventListener("abort", () => req.destroy(new Error("aborted")), { once: true });
    req.end(body);
  });
}
