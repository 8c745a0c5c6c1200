import * as client from "openid-client";
import { AppError } from "../../platform/errors";
import { guardedFetch, insecureAllowed } from "../../platform/outbound/guarded-fetch";

/** The identity provider's answers the sign-in needs: discovery, then the client's configuration. */
export type OidcClientSettings = { issuer: string; clientId: string; clientSecret: string };

/**
 * Discovers the identity provider (`<issuer>/.well-known/openid-configuration`) through the SSRF
 * guard and returns openid-client's configuration for this client. https only, unless the
 * operator allowlisted the host in WEBHOOK_ALLOWED_HOSTS (a local identity provider, tests).
 */
export async function oidcConfiguration(s: OidcClientSettings): Promise<client.Configuration> {
  const issuer = new URL(s.issuer);
  const insecure = issuer.protocol === "http:" && insecureAllowed(issuer);
  const config = await client.discovery(issuer, s.clientId, undefined, client.ClientSecretBasic(s.clientSecret), {
    [client.customFetch]: (url, options) => guardedFetch(url, options),
    execute: insecure ? [client.allowInsecureRequests] : [],
    timeout: 10,
  });
  return config;
}

/** Discovery for a connection being saved: a failure is the admin's to fix, said plainly. */
export async function discoverForSaving(s: OidcClientSettings): Promise<client.Configuration> {
  try {
    const config = await oidcConfiguration(s);
    const meta = config.serverMetadata();
    if (!meta.authorization_endpoint || !meta.token_endpoint || !meta.jwks_uri) {
      throw new Error("the discovery document lacks an authorization, token or JWKS endpoint");
    }
    return config;
  } catch (err) {
    const why = describeError(err);
    throw new AppError("validation_failed", `issuer: OpenID Connect discovery at ${s.issuer.replace(/\/$/, "")}/.well-known/openid-configuration failed: ${why}. Check the issuer URL your identity provider shows.`, {
      errors: [{ field: "issuer", message: `discovery failed: ${why}` }],
    });
  }
}

/** An error and its causes, innermost last (openid-client wraps the network's and the SSRF guard's). */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const message = e instanceof Error ? e.message : String(e);
    if (message && !parts.includes(message)) parts.push(message);
  }
  return parts.join(": ") || "unknown error";
}
