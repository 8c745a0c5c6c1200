import { randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import * as client from "openid-client";
import { queryable, transaction } from "../../../db/transaction";
import { members, scimUsers, sessions, ssoConnections, ssoSignIns, users } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { takeToken } from "../../platform/api/rate-limit";
import { publicOrigin } from "../../platform/config/public-url";
import { newId } from "../../platform/ids";
import { hasPasskey } from "../passkeys";
import { clientSecretOf } from "./connections";
import { describeError, oidcConfiguration } from "./discovery";
import { emailDomain, ssoRouteForEmail } from "./domains";

/** A sign-in started must come back within this long. */
export const SSO_SIGN_IN_TTL_MS = 10 * 60_000;
/** As Auth.js's database sessions (lib/domains/auth/auth.ts). */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
/** The browser's half of a sign-in under way: the state, httpOnly, only sent to /sso. */
export const SSO_STATE_COOKIE = "agentdraft-sso-state";
/** Starts per email domain (unauthenticated work: each writes a row). */
const START_LIMITS = { rate: 2, burst: 60 };

/**
 * Why an SSO sign-in was refused; the web app turns the reason into a message on the sign-in page
 * (a code in the URL, never text an attacker could write there).
 */
export type SsoRefusalReason = "invalid_email" | "no_connection" | "rate_limited" | "unavailable" | "expired" | "failed" | "email_not_covered" | "not_member";

export class SsoRefusal extends Error {
  override name = "SsoRefusal";
  constructor(
    readonly reason: SsoRefusalReason,
    message: string,
  ) {
    super(message);
  }
}


export const ssoRedirectUri = () => `${publicOrigin()}/sso/callback`;

const SCOPES = "openid email profile";

/**
 * Starts a sign-in for `email`: its domain must be verified for a workspace's connection. Keeps
 * state, nonce and PKCE verifier server-side (one row, 10 minutes) and answers the identity
 * provider's authorization URL and the state (for the browser's cookie). `next` is already safe.
 */
export async function startSsoSignIn(rawEmail: string, next: string): Promise<{ authorizationUrl: string; state: string }> {
  const email = rawEmail.trim().toLowerCase();
  const domain = email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? emailDomain(email) : null;
  if (!domain) throw new SsoRefusal("invalid_email", "Enter your work email address.");
  const route = await ssoRouteForEmail(email);
  if (!route) throw new SsoRefusal("no_connection", `No workspace signs in ${domain} with SSO: sign in with your passkey.`);
  if (!(await takeToken(`sso-start:${domain}`, START_LIMITS)).allowed) throw new SsoRefusal("rate_limited", "Too many sign-ins started just now: try again in a minute.");
  let config: client.Configuration;
  try {
    config = await oidcConfiguration({ issuer: route.connection.issuer, clientId: route.connection.clientId, clientSecret: clientSecretOf(route.connection) });
  } catch (err) {
    throw new SsoRefusal("unavailable", `Your identity provider could not be reached (${describeError(err)}).`);
  }
  const state = randomBytes(32).toString("base64url");
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const q = await queryable();
  // Sign-ins never finished are dropped here, a bounded few at a time.
  await q.execute(sql`delete from sso_sign_ins where state in (select state from sso_sign_ins where expires_at < now() limit 100)`);
  await q.insert(ssoSignIns).values({ state, connectionId: route.connection.id, email, nonce, codeVerifier, next, expiresAt: new Date(Date.now() + SSO_SIGN_IN_TTL_MS) });
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

const sameString = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export type SsoSignedIn = { sessionToken: string; expires: Date; next: string; userId: string; memberId: string; workspaceId: string; needsPasskey: boolean };

/**
 * Finishes a sign-in at the callback: the state must match the browser's cookie and a sign-in
 * under way (used once: the row is deleted); openid-client exchanges the code with the PKCE
 * verifier and checks the ID token (issuer, audience, expiry, signature, nonce). The asserted
 * email must be on a verified domain of this connection. The person then needs a membership of
 * the workspace (an existing member, or a new viewer when the connection provisions just in time),
 * gets a user if new, and a database session (not a passkey proof: approvals still ask for one).
 */
export async function completeSsoSignIn(params: URLSearchParams, stateCookie: string | undefined): Promise<SsoSignedIn> {
  const state = params.get("state") ?? "";
  const expired = () => new SsoRefusal("expired", "This sign-in has expired, was already used, or was started in another browser: start again.");
  if (!state || !stateCookie || state.length > 200 || !sameString(state, stateCookie)) throw expired();
  const q = await queryable();
  const [pending] = await q.delete(ssoSignIns).where(eq(ssoSignIns.state, state)).returning();
  if (!pending || pending.expiresAt.getTime() < Date.now()) throw expired();
  const [connection] = await q.select().from(ssoConnections).where(eq(ssoConnections.id, pending.connectionId));
  if (!connection) throw expired();

  let claims: client.IDToken;
  let email: string | undefined;
  try {
    const config = await oidcConfiguration({ issuer: connection.issuer, clientId: connection.clientId, clientSecret: clientSecretOf(connection) });
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
  const address = email?.trim().toLowerCase();
  const route = address ? await ssoRouteForEmail(address) : null;
  if (!address || !route || route.connection.id !== connection.id) {
    throw new SsoRefusal("email_not_covered", `Your identity provider signed you in as ${address ?? "a person without an email"}, which is not on a verified domain of this workspace's SSO connection.`);
  }
  return finishSignIn(connection, address, claims, pending.next);
}

async function finishSignIn(connection: typeof ssoConnections.$inferSelect, email: string, claims: client.IDToken, next: string): Promise<SsoSignedIn> {
  const signedIn = await transaction(async (tx) => {
    const name = typeof claims.name === "string" ? claims.name.slice(0, 100) : null;
    await tx.insert(users).values({ id: newId("user"), email, name, emailVerified: new Date() }).onConflictDoNothing();
    const [user] = await tx.select().from(users).where(sql`lower(${users.email}) = ${email}`);
    let [member] = await tx
      .select()
      .from(members)
      .where(and(eq(members.workspaceId, connection.workspaceId), sql`lower(${members.email}) = ${email}`))
      .for("update");
    let joined = false;
    if (member && member.userId && member.userId !== user!.id) throw new SsoRefusal("not_member", "Your membership belongs to another account: ask a workspace admin.");
    if (member && !member.userId) [member] = await tx.update(members).set({ userId: user!.id }).where(eq(members.id, member.id)).returning();
    if (!member) {
      if (!connection.justInTime) throw new SsoRefusal("not_member", "You are not a member of this workspace: ask an admin to invite you (or to provision you from your identity provider).");
      // Whom SCIM deprovisioned stays out: just-in-time provisioning never undoes the identity provider's decision.
      const [deprovisioned] = await tx
        .select({ id: scimUsers.id })
        .from(scimUsers)
        .where(and(eq(scimUsers.workspaceId, connection.workspaceId), sql`lower(${scimUsers.email}) = ${email}`, eq(scimUsers.active, false)));
      if (deprovisioned) throw new SsoRefusal("not_member", "Your identity provider has deprovisioned you from this workspace: ask its admin.");
      [member] = await tx.insert(members).values({ id: newId("member"), workspaceId: connection.workspaceId, email, name, role: "viewer", userId: user!.id }).returning();
      joined = true;
    }
    const sessionToken = randomBytes(32).toString("base64url");
    const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000);
    // authenticated_at in the past: an SSO sign-in is not a passkey proof (passkey changes and approvals ask for one).
    await tx.insert(sessions).values({ sessionToken, userId: user!.id, expires, authenticatedAt: new Date(0), signedInVia: "sso" });
    const actor = { type: "member" as const, workspaceId: connection.workspaceId, memberId: member!.id };
    await appendAudit(tx, [
      ...(joined ? [{ actor, action: "member.joined", resource: { type: "member", id: member!.id }, summary: { email, role: "viewer", via: "sso" } }] : []),
      { actor, action: "sso.signed_in", resource: { type: "member", id: member!.id }, summary: { email, issuer: connection.issuer, subject: claims.sub, connection_id: connection.id } },
    ]);
    return { sessionToken, expires, next, userId: user!.id, memberId: member!.id, workspaceId: connection.workspaceId };
  });
  return { ...signedIn, needsPasskey: !(await hasPasskey(signedIn.userId)) };
}

