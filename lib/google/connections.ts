import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, asc, eq, ne, sql } from "drizzle-orm";
import { CodeChallengeMethod, type Credentials } from "google-auth-library";
import { queryable, transaction } from "../../db/transaction";
import { googleCalendarLinks, googleConnections, type GoogleConnectionRow, type MemberRow } from "../../db/schema";
import { AppError, notFound } from "../errors";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { open, seal } from "../crypto/secret-box";
import { assertRole } from "../members/roles";
import { memberActor } from "../members/memberships";
import { GOOGLE_SCOPES } from "./config";
import { calendarClient, newOAuthClient } from "./oauth-client";
import { callGoogle, googleFailure } from "./quota";
import { stopChannel } from "./push-channel";
import { forgetClient } from "./authorized-client";
import { lockCalendars } from "../calendars/lock-calendars";

const STATE_TTL_MS = 10 * 60 * 1000;

type PendingConnect = { state: string; verifier: string; workspaceId: string; memberId: string; redirectUri: string; exp: number };

/**
 * Step 1 of connecting: the Google consent URL (offline access, so Google returns a refresh
 * token; PKCE) and a sealed value for a short-lived cookie binding the flow to this member and
 * browser. The callback accepts the code only with the same state and the same member.
 */
export function startGoogleConnect(member: MemberRow, redirectUri: string): { url: string; cookie: string } {
  assertRole(member.role, "admin", "connect Google Calendar");
  const state = randomBytes(24).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const url = newOAuthClient(redirectUri).generateAuthUrl({
    access_type: "offline",
    prompt: "consent",
    include_granted_scopes: true,
    scope: GOOGLE_SCOPES,
    state,
    code_challenge: challenge,
    code_challenge_method: CodeChallengeMethod.S256,
  });
  const pending: PendingConnect = { state, verifier, workspaceId: member.workspaceId, memberId: member.id, redirectUri, exp: Date.now() + STATE_TTL_MS };
  return { url, cookie: seal(JSON.stringify(pending)) };
}

function readPending(cookie: string | undefined): PendingConnect | null {
  if (!cookie) return null;
  try {
    const p = JSON.parse(open(cookie)) as PendingConnect;
    return p.exp > Date.now() ? p : null;
  } catch {
    return null;
  }
}

const sameString = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Step 2, the OAuth callback: checks the state against the cookie and the signed-in member,
 * exchanges the code (with the PKCE verifier) for tokens, learns the account from its primary
 * calendar, and stores the refresh token sealed. Reconnecting the same account replaces its token.
 */
export async function completeGoogleConnect(
  member: MemberRow,
  input: { cookie: string | undefined; state: string | null; code: string | null; error?: string | null },
): Promise<GoogleConnectionRow> {
  assertRole(member.role, "admin", "connect Google Calendar");
  const pending = readPending(input.cookie);
  if (!pending || !input.state || !sameString(pending.state, input.state)) {
    throw new AppError("invalid_request", "This Google sign-in is not the one this browser started (or it took longer than 10 minutes). Connect again.");
  }
  if (pending.memberId !== member.id || pending.workspaceId !== member.workspaceId) {
    throw new AppError("forbidden", "This Google sign-in was started by another member or workspace. Connect again.");
  }
  if (input.error) throw new AppError("invalid_request", `Google did not grant access (${input.error}).`);
  if (!input.code) throw new AppError("invalid_request", "Google sent no authorization code. Connect again.");

  const client = newOAuthClient(pending.redirectUri);
  let tokens: Credentials;
  try {
    ({ tokens } = await client.getToken({ code: input.code, codeVerifier: pending.verifier, redirect_uri: pending.redirectUri }));
  } catch (err) {
    throw new AppError("invalid_request", `Google refused the authorization code: ${googleFailure(err).message}`);
  }
  if (!tokens.refresh_token) throw new AppError("invalid_request", "Google returned no refresh token (offline access was not granted). Connect again.");
  const granted = (tokens.scope ?? "").split(" ").filter(Boolean);
  const missing = GOOGLE_SCOPES.filter((s) => !granted.includes(s));
  if (missing.length) throw new AppError("invalid_request", `Google access was granted without ${missing.join(", ")}: allow calendar access and connect again.`);
  client.setCredentials(tokens);
  const list = await calendarClient(client).calendarList.list({ minAccessRole: "reader" });
  const email = list.data.items?.find((c) => c.primary)?.id;
  if (!email) throw new AppError("invalid_request", "The Google account has no primary calendar.");

  const sealed = seal(tokens.refresh_token);
  return transaction(async (tx) => {
    const live = and(eq(googleConnections.workspaceId, member.workspaceId), sql`lower(${googleConnections.googleEmail}) = lower(${email})`, ne(googleConnections.status, "revoked"));
    const [existing] = await tx.select().from(googleConnections).where(live).for("update");
    const [row] = existing
      ? await tx
          .update(googleConnections)
          .set({ refreshTokenSealed: sealed, scopes: granted, status: "active", lastError: null, memberId: member.id, updatedAt: sql`now()` })
          .where(eq(googleConnections.id, existing.id))
          .returning()
      : await tx
          .insert(googleConnections)
          .values({ id: newId("googleConnection"), workspaceId: member.workspaceId, memberId: member.id, googleEmail: email, scopes: granted, refreshTokenSealed: sealed })
          .returning();
    await appendAudit(tx, [
      { actor: memberActor(member), action: existing ? "google.reconnected" : "google.connected", resource: { type: "google_connection", id: row!.id }, summary: { google_email: email, scopes: granted } },
    ]);
    forgetClient(row!.id);
    return row!;
  });
}

export async function listConnections(workspaceId: string): Promise<GoogleConnectionRow[]> {
  const q = await queryable();
  return q
    .select()
    .from(googleConnections)
    .where(and(eq(googleConnections.workspaceId, workspaceId), ne(googleConnections.status, "revoked")))
    .orderBy(asc(googleConnections.createdAt), asc(googleConnections.id));
}

export async function getConnection(workspaceId: string, connectionId: string): Promise<GoogleConnectionRow> {
  const q = await queryable();
  const [row] = await q.select().from(googleConnections).where(and(eq(googleConnections.workspaceId, workspaceId), eq(googleConnections.id, connectionId)));
  if (!row || row.status === "revoked") throw notFound("Google connection", connectionId);
  return row;
}

/**
 * Disconnects a Google account: stops its calendars' push channels, revokes the refresh token
 * at Google, unlinks its calendars (their imported busy time goes with them) and forgets the
 * token. If Google cannot be reached to revoke, the token is forgotten anyway and the result
 * says so (revoke it in the Google account's security settings).
 */
export async function disconnectGoogle(actor: Actor, connectionId: string): Promise<{ connection: GoogleConnectionRow; revokedAtGoogle: boolean; revokeError: string | null }> {
  const connection = await getConnection(actor.workspaceId, connectionId);
  const q = await queryable();
  const links = await q.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.connectionId, connectionId));
  for (const link of links) await stopChannel(connection, link).catch(() => undefined);
  let revokeError: string | null = null;
  if (connection.refreshTokenSealed) {
    try {
      await callGoogle(connection.id, () => newOAuthClient().revokeToken(open(connection.refreshTokenSealed!)));
    } catch (err) {
      const f = googleFailure(err);
      // Google answers 400 invalid_token for a token it already revoked: that is the goal reached.
      if (!(f.status === 400 && f.reason === "invalid_token")) revokeError = f.message;
    }
  }
  const row = await transaction(async (tx) => {
    // Imported busy time goes with the links: changed under the calendars' locks, like all busy time.
    await lockCalendars(tx, actor.workspaceId, links.map((l) => l.calendarId));
    await tx.delete(googleCalendarLinks).where(eq(googleCalendarLinks.connectionId, connectionId));
    const [revoked] = await tx
      .update(googleConnections)
      .set({ status: "revoked", refreshTokenSealed: null, revokedAt: sql`now()`, updatedAt: sql`now()`, lastError: revokeError })
      .where(eq(googleConnections.id, connectionId))
      .returning();
    await appendAudit(tx, [
      {
        actor,
        action: "google.disconnected",
        resource: { type: "google_connection", id: connectionId },
        summary: { google_email: connection.googleEmail, unlinked_calendars: links.map((l) => l.calendarId), revoked_at_google: revokeError === null },
      },
    ]);
    return revoked!;
  });
  forgetClient(connectionId);
  return { connection: row, revokedAtGoogle: revokeError === null, revokeError };
}
