import { OAUTH_HEADERS, OAuthError, oauthErrorResponse, oauthJson } from "./oauth-error";

const MAX_BODY_BYTES = 16 * 1024;

/** A browser-based client's preflight: the OAuth endpoints take no cookies, so any origin may call them. */
export const preflight = () =>
  new Response(null, { status: 204, headers: { ...OAUTH_HEADERS, "access-control-allow-methods": "POST, OPTIONS", "access-control-allow-headers": "content-type, authorization, mcp-protocol-version", "access-control-max-age": "600" } });

/** Reads a bounded request body of the given media type, or an invalid_request error. */
async function boundedBody(req: Request, type: "application/x-www-form-urlencoded" | "application/json"): Promise<string> {
  const media = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (media !== type) throw new OAuthError("invalid_request", `Send the request as ${type}.`);
  if (Number(req.headers.get("content-length") ?? "0") > MAX_BODY_BYTES) throw new OAuthError("invalid_request", `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new OAuthError("invalid_request", `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  return text;
}

/** An OAuth endpoint taking a form (token, revocation): its answer as JSON, its errors as RFC 6749 defines. */
export function formEndpoint(handle: (form: URLSearchParams) => Promise<{ body: unknown; status?: number } | null>) {
  return async (req: Request): Promise<Response> => {
    try {
      const out = await handle(new URLSearchParams(await boundedBody(req, "application/x-www-form-urlencoded")));
      return out ? oauthJson(out.body, out.status) : new Response(null, { status: 200, headers: OAUTH_HEADERS });
    } catch (err) {
      return oauthErrorResponse(err);
    }
  };
}

/** An OAuth endpoint taking JSON (registration). */
export function jsonEndpoint(handle: (body: unknown, req: Request) => Promise<{ body: unknown; status?: number }>) {
  return async (req: Request): Promise<Response> => {
    try {
      const text = await boundedBody(req, "application/json");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new OAuthError("invalid_client_metadata", "The body is not valid JSON.");
      }
      const out = await handle(body, req);
      return oauthJson(out.body, out.status);
    } catch (err) {
      return oauthErrorResponse(err);
    }
  };
}

/** The caller's address as the platform reports it (Vercel and most proxies set x-forwarded-for), for rate limits only. */
export function callerAddress(req: Request): string {
  return (req.headers.get("x-forwarded-for") ?? "").split(",")[0]!.trim().slice(0, 64) || "unknown";
}
