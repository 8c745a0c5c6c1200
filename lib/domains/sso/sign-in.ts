import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import * as client from "openid-client";
import { queryable } from "../../../db/transaction";
import { ssoConnections, ssoSignIns, type SsoConnectionRow } from "../../../db/schema";
import { takeToken } from "../../platform/api/rate-limit";
import { publicOrigin } from "../../platform/config/public-url";
import { sameString } from "../../platform/crypto/same-string";
import { admitSsoPerson, type SsoSignedIn } from "./admit";
import { oidcSettingsOf } from "./connections";
import { describeError, oidcConfiguration } from "./discovery";
import { emailDomain, ssoRouteForEmail } from "./domains";
import { SsoRefusal } from "./refusal";
import { startSamlSignIn } from "./saml-sign-in";

/** A sign-in started must come back within this long. */
export const SSO_SIGN_IN_TTL_MS = 10 * 60_000;
/** The browser's half of a sign-in under way: the state, httpOnly, only sent to /sso. */
export const SSO_STATE_COOKIE = "agentdraft-sso-state";
/** Starts per email domain (unauthenticated work: each writes a row). */
const START_LIMITS = { rate: 2, burst: 60 };

export { SsoRefusal, type SsoRefusalReason } from "./refusal";
export { SESSION_MAX_AGE_SECONDS, type SsoSignedIn } from "./admit";

export const ssoRedirectUri = () => `${publicOrigin()}/sso/callback`;

const SCOPES = "openid email profile";

/**
 * Starts a sign-in for `email`: its domain must be verified for a workspace's connection. OIDC
 * keeps state, nonce and PKCE verifier server-side (one row, 10 minutes) and answers the identity
 * provider's authorization URL and the state (for the browser's cookie); SAML keeps its
 * AuthnRequest's id the same way (lib/domains/sso/saml-sign-in.ts). `next` is already safe.
 */
export async function startSsoSignIn(rawEmail: string, next: string): Promise<{ authorizationUrl: string; state?: string; samlRequestId?: string }> {
  const email = rawEmail.trim().toLowerCase();
  const domain = email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? emailDomain(email) : null;
  if (!domain) throw new SsoRefusal("invalid_email", "Enter your work email address.");
  const route = await ssoRouteForEmail(email);
  if (!route) throw new SsoRefusal("no_connection", `No workspace signs in ${domain} with SSO: sign in with your passkey.`);
  if (!(await takeToken(`sso-start:${domain}`, START_LIMITS)).allowed) throw new SsoRefusal("rate_limited", "Too many sign-ins started just now: try again in a minute.");
  if (route.connection.protocol === "saml") return startSamlSignIn(route.connection, email, next);
  return startOidcSignIn(route.connection, email, next);
}

async function startOidcSignIn(connection: SsoConnectionRow, email: string, next: string): Promise<{ authorizationUrl: string; state: string }> {
  let config: client.Configuration;
  try {
    config = await oidcConfiguration(oidcSettingsOf(connection));
  } catch (err) {
    throw new SsoRefusal("unavailable", `Your identity provider could not be reached (${describeError(err)}).`);
  }
  const state = randomBytes(32).toString("base64url");
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const q = await queryable();
  // Sign-ins never finished are dropped here, a bounded few at a time.
  await q.execute(sql`delete from sso_sign_ins where state in (select state from sso_sign_ins where expires_at < now() limit 100)`);
  await q.insert(ssoSignIns).values({ state, connectionId: connection.id, email, nonce, codeVerifier, next, expiresAt: new Date(Date.now() + SSO_SIGN_IN_TTL_MS) });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: ssoRedirectUri(),
    scope: SCOPES,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    login_hint: email,
  });
  return { authorizationUrl: url.href, state };
}

/**
 * Finishes a sign-in at the callback: the state must match the browser's cookie and a sign-in
 * under way (used once: the row is deleted); openid-client exchanges the code with the PKCE
 * verifier and checks the ID token (issuer, audience, expiry, signature, nonce). Then as every SSO
 * sign-in (admitSsoPerson): the email on a verified domain of this connection, a membership, a session.
 */
export async function completeSsoSignIn(params: URLSearchParams, stateCookie: string | undefined): Promise<SsoSignedIn> {
  const state = params.get("state") ?? "";
  const expired = () => new SsoRefusal("expired", "This sign-in has expired, was already used, or was started in another browser: start again.");
  if (!state || !stateCookie || state.length > 200 || !sameString(state, stateCookie)) throw expired();
  const q = await queryable();
  const [pending] = await q.delete(ssoSignIns).where(eq(ssoSignIns.state, state)).returning();
  if (!pending || pending.expiresAt.getTime() < Date.now()) throw expired();
  const [connection] = await q.select().from(ssoConnections).where(eq(ssoConnections.id, pending.connectionId));
  if (!connection || connection.protocol !== "oidc") throw expired();

  let claims: client.IDToken;
  let email: string | undefined;
  try {
    const config = await oidcConfiguration(oidcSettingsOf(connection));
    // The ID token's signature is checked against the provider's keys too, not only trusted for coming over TLS.
    client.enableNonRepudiationChecks(config);
    const callbackUrl = new URL(ssoRedirectUri());
    callbackUrl.search = params.toString();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.codeVerifier, expectedNonce: pending.nonce, expectedState: state, idTokenExpected: true });
    claims = tokens.claims()!;
    if (claims.email_verified === false) throw new SsoRefusal("email_not_covered", "Your identity provider says your email address is not verified.");
    email = typeof claims.email === "string" ? claims.email : undefined;
    if (!email && config.serverMetadata().userinfo_endpoint) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      if (info.email_verified === false) throw new SsoRefusal("email_not_covered", "Your identity provider says your email address is not verified.");
      email = info.email;
    }
  } catch (err) {
    if (err instanceof SsoRefusal) throw err;
    throw new SsoRefusal("failed", `The identity provider's answer was refused: ${describeError(err)}`);
  }
  const name = typeof claims.name === "string" ? claims.name : null;
  return admitSsoPerson(connection, { email, name, subject: claims.sub, protocol: "oidc" }, pending.next);
}
