import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, ne, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { googleCalendarLinks, googleConnections, type CalendarProviderId, type GoogleConnectionRow, type MemberRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { open, seal } from "../../platform/crypto/secret-box";
import { assertRole } from "../members";
import { memberActor } from "../members";
import { lockCalendars } from "../calendars";
import type { CalendarProvider } from "./provider";
import { stopWatch } from "./watch";
import { capturesOutbound } from "../../platform/config/preview";
import { recordCapture } from "../../platform/outbound/captures";
import { sameString } from "../../platform/crypto/same-string";

const STATE_TTL_MS = 10 * 60 * 1000;

type PendingConnect = { state: string; verifier: string; workspaceId: string; memberId: string; redirectUri: string; exp: number; provider?: CalendarProviderId };

/**
 * Step 1 of connecting: the provider's consent URL (offline access, so it returns a refresh
 * token; PKCE) and a sealed value for a short-lived cookie binding the flow to this member and
 * browser. The callback accepts the code only with the same state and the same member.
 */
export function startConnect(provider: CalendarProvider, member: MemberRow, redirectUri: string): { url: string; cookie: string } {
  assertRole(member.role, "admin", `connect ${provider.product}`);
  const state = randomBytes(24).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const codeChallenge = createHash("sha256").update(verifier).digest("base64url");
  const url = provider.consentUrl({ redirectUri, state, codeChallenge });
  const pending: PendingConnect = { state, verifier, workspaceId: member.workspaceId, memberId: member.id, redirectUri, exp: Date.now() + STATE_TTL_MS, provider: provider.id };
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

/**
 * Step 2, the OAuth callback: checks the state against the cookie and the signed-in member,
 * exchanges the code (with the PKCE verifier) for tokens and the account, and stores the
 * refresh token sealed. Reconnecting the same account replaces its token.
 */
export async function completeConnect(
  provider: CalendarProvider,
  member: MemberRow,
  input: { cookie: string | undefined; state: string | null; code: string | null; error?: string | null },
): Promise<GoogleConnectionRow> {
  assertRole(member.role, "admin", `connect ${provider.product}`);
  const brand = provider.brand;
  const pending = readPending(input.cookie);
  if (!pending || !input.state || !sameString(pending.state, input.state) || (pending.provider ?? "google") !== provider.id) {
    throw new AppError("invalid_request", `This ${brand} sign-in is not the one this browser started (or it took longer than 10 minutes). Connect again.`);
  }
  if (pending.memberId !== member.id || pending.workspaceId !== member.workspaceId) {
    throw new AppError("forbidden", `This ${brand} sign-in was started by another member or workspace. Connect again.`);
  }
  if (input.error) throw new AppError("invalid_request", `${brand} did not grant access (${input.error}).`);
  if (!input.code) throw new AppError("invalid_request", `${brand} sent no authorization code. Connect again.`);

  const account = await provider.exchangeCode({ code: input.code, codeVerifier: pending.verifier, redirectUri: pending.redirectUri });
  const { email, scopes: granted } = account;
  const sealed = seal(account.refreshToken);
  return transaction(async (tx) => {
    const live = and(
      eq(googleConnections.workspaceId, member.workspaceId),
      eq(googleConnections.provider, provider.id),
      sql`lower(${googleConnections.googleEmail}) = lower(${email})`,
      ne(googleConnections.status, "revoked"),
    );
    const [existing] = await tx.select().from(googleConnections).where(live).for("update");
    const [row] = existing
      ? await tx
          .update(googleConnections)
          .set({ refreshTokenSealed: sealed, scopes: granted, status: "active", lastError: null, memberId: member.id, updatedAt: sql`now()` })
          .where(eq(googleConnections.id, existing.id))
          .returning()
      : await tx
          .insert(googleConnections)
          .values({ id: newId("googleConnection"), workspaceId: member.workspaceId, memberId: member.id, provider: provider.id, googleEmail: email, scopes: granted, refreshTokenSealed: sealed })
          .returning();
    await appendAudit(tx, [
      {
        actor: memberActor(member),
        action: `${provider.id}.${existing ? "reconnected" : "connected"}`,
        resource: { type: `${provider.id}_connection`, id: row!.id },
        summary: { [`${provider.id}_email`]: email, scopes: granted },
      },
    ]);
    provider.forget(row!.id);
    return row!;
  });
}

/** A workspace's live connections (of one provider, or all). */
export async function listConnections(workspaceId: string, provider?: CalendarProviderId): Promise<GoogleConnectionRow[]> {
  const q = await queryable();
  return q
    .select()
    .from(googleConnections)
    .where(and(eq(googleConnections.workspaceId, workspaceId), ne(googleConnections.status, "revoked"), provider ? eq(googleConnections.provider, provider) : undefined))
    .orderBy(asc(googleConnections.createdAt), asc(googleConnections.id));
}

export async function getConnection(workspaceId: string, connectionId: string): Promise<GoogleConnectionRow> {
  const q = await queryable();
  const [row] = await q.select().from(googleConnections).where(and(eq(googleConnections.workspaceId, workspaceId), eq(googleConnections.id, connectionId)));
  if (!row || row.status === "revoked") throw notFound(row?.provider === "microsoft" ? "Microsoft connection" : "Google connection", connectionId);
  return row;
}

export type Disconnected = { connection: GoogleConnectionRow; revokedAtProvider: boolean; revokeError: string | null };

/**
 * Disconnects an account: stops its calendars' subscriptions, revokes the refresh token at the
 * provider, unlinks its calendars (their imported busy time goes with them) and forgets the
 * token. If the provider cannot be reached to revoke, the token is forgotten anyway and the
 * result says so (revoke it in the account's security settings).
 */
export async function disconnect(provider: CalendarProvider, actor: Actor, connectionId: string): Promise<Disconnected> {
  const connection = await getConnection(actor.workspaceId, connectionId);
  if (connection.provider !== provider.id) throw notFound(`${provider.brand} connection`, connectionId);
  const q = await queryable();
  const links = await q.select().from(googleCalendarLinks).where(eq(googleCalendarLinks.connectionId, connectionId));
  for (const link of links) await stopWatch(provider, connection, link).catch(() => undefined);
  let revokeError: string | null = null;
  if (connection.refreshTokenSealed && capturesOutbound("calendar")) {
    // A preview's copy of production's connection: revoking would sign production out of the account.
    await recordCapture({ workspaceId: actor.workspaceId, kind: "calendar", target: `${provider.product}: ${connection.googleEmail}`, summary: { connection_id: connectionId, write: "revoke" } });
  } else if (connection.refreshTokenSealed) {
    try {
      await provider.revoke(connection);
    } catch (err) {
      revokeError = err instanceof Error ? err.message : provider.describe(err);
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
        action: `${provider.id}.disconnected`,
        resource: { type: `${provider.id}_connection`, id: connectionId },
        summary: { [`${provider.id}_email`]: connection.googleEmail, unlinked_calendars: links.map((l) => l.calendarId), [`revoked_at_${provider.id}`]: revokeError === null },
      },
    ]);
    return revoked!;
  });
  provider.forget(connectionId);
  return { connection: row, revokedAtProvider: revokeError === null, revokeError };
}
