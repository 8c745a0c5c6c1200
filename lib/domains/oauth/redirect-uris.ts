import { OAuthError } from "./oauth-error";

export const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Schemes that run code or read local data where a browser lands: never a redirect target. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "blob:", "about:", "ftp:", "ws:", "wss:", "filesystem:"]);

/**
 * Checks a client's redirect URIs (RFC 8252 for native apps, OAuth 2.1 §2.3.1): absolute, no
 * fragment, https anywhere, http only to a loopback address (a local app's listener), or an
 * app's private-use scheme (`cursor://…`, `com.example.app:/cb`). Returns them as given: at
 * authorization they are matched exactly, character for character.
 */
export function checkRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new OAuthError("invalid_redirect_uri", "redirect_uris must list at least one URI.");
  if (value.length > MAX_REDIRECT_URIS) throw new OAuthError("invalid_redirect_uri", `At most ${MAX_REDIRECT_URIS} redirect URIs per client.`);
  return value.map((uri) => {
    if (typeof uri !== "string" || uri.length > MAX_URI_LENGTH) throw new OAuthError("invalid_redirect_uri", `Each redirect URI is a string of at most ${MAX_URI_LENGTH} characters.`);
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new OAuthError("invalid_redirect_uri", `${JSON.stringify(uri)} is not an absolute URI.`);
    }
    if (url.hash || uri.includes("#")) throw new OAuthError("invalid_redirect_uri", `${uri} has a fragment; redirect URIs must not.`);
    if (url.username || url.password) throw new OAuthError("invalid_redirect_uri", `${uri} carries credentials; redirect URIs must not.`);
    if (FORBIDDEN_SCHEMES.has(url.protocol)) throw new OAuthError("invalid_redirect_uri", `${url.protocol} URIs cannot be redirect URIs.`);
    if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
      throw new OAuthError("invalid_redirect_uri", `${uri} uses http to a host that is not loopback: use https (http is only for a local app on 127.0.0.1, [::1] or localhost).`);
    }
    return uri;
  });
}

/** The web origins a client's redirect URIs name: a browser-based client calls /api/mcp from them. */
export function redirectOrigins(uris: string[]): string[] {
  return [...new Set(uris.map((u) => new URL(u)).filter((u) => u.protocol === "https:" || u.protocol === "http:").map((u) => u.origin))];
}
