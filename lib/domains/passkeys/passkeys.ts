import { and, asc, eq, gt, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { transaction, queryable } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { authAccounts, authenticators, members, sessions, type AuthenticatorRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { appendAudit, type AuditInput } from "../../platform/audit/append-audit";

export async function listPasskeys(userId: string): Promise<AuthenticatorRow[]> {
  const q = await queryable();
  return q.select().from(authenticators).where(eq(authenticators.userId, userId)).orderBy(asc(authenticators.createdAt), asc(authenticators.credentialID));
}

/** One audit entry per workspace the user belongs to (each workspace has its own chain). */
export async function auditForUser(tx: Transaction, userId: string, entry: Omit<AuditInput, "actor">): Promise<void> {
  const memberships = await tx.select({ id: members.id, workspaceId: members.workspaceId }).from(members).where(eq(members.userId, userId));
  for (const m of memberships) {
    await appendAudit(tx, [{ ...entry, actor: { type: "member", workspaceId: m.workspaceId, memberId: m.id } }]);
  }
}

/** Stores a newly registered passkey (called by the Auth.js adapter) and audits it. */
export async function addPasskey(data: Omit<AuthenticatorRow, "createdAt">): Promise<AuthenticatorRow> {
  return transaction(async (tx) => {
    const [row] = await tx.insert(authenticators).values(data).returning();
    await auditForUser(tx, data.userId, { action: "passkey.added", resource: { type: "passkey", id: data.credentialID }, summary: { device_type: data.credentialDeviceType } });
    return row!;
  });
}

export const removePasskeyInput = z.object({ credential_id: z.string().min(1).max(1000) });

/** Passkey changes need a passkey assertion on this session within this long. */
export const RECENT_AUTHENTICATION_MS = 5 * 60_000;

/** Whether this session of the user proved a passkey within RECENT_AUTHENTICATION_MS. */
export async function isRecentlyAuthenticated(userId: string, sessionToken: string | undefined, q?: Transaction): Promise<boolean> {
  if (!sessionToken) return false;
  const db = q ?? (await queryable());
  const [row] = await db
    .select({ token: sessions.sessionToken })
    .from(sessions)
    .where(
      and(
        eq(sessions.sessionToken, sessionToken),
        eq(sessions.userId, userId),
        gt(sessions.authenticatedAt, sql`now() - make_interval(secs => ${RECENT_AUTHENTICATION_MS / 1000})`),
      ),
    );
  return Boolean(row);
}

/** Refuses a passkey change unless this session proved a passkey in the last few minutes. */
export async function assertRecentlyAuthenticated(userId: string, sessionToken: string | undefined, q?: Transaction): Promise<void> {
  if (!(await isRecentlyAuthenticated(userId, sessionToken, q))) {
    throw new AppError("forbidden", "Confirm it is you with one of your passkeys first: changing passkeys needs a passkey confirmation from the last 5 minutes.");
  }
}

/** A passkey assertion was verified (Auth.js updates its counter): the session it was made in is freshly authenticated. */
export async function recordAssertion(sessionToken: string | undefined, credentialId: string): Promise<void> {
  if (!sessionToken) return; // a sign-in: the session it creates starts authenticated
  const q = await queryable();
  await q.execute(sql`
    update sessions set authenticated_at = now()
    where session_token = ${sessionToken}
      and user_id = (select user_id from authenticators where credential_id = ${credentialId})`);
}

/** Whether the user already has a passkey (adding another one is then a change that needs a recent confirmation). */
export async function hasPasskey(userId: string): Promise<boolean> {
  const q = await queryable();
  const [row] = await q.select({ id: authenticators.credentialID }).from(authenticators).where(eq(authenticators.userId, userId)).limit(1);
  return Boolean(row);
}

/**
 * Removes one of the user's passkeys, never the last one (it is their only way in). Needs a
 * recent passkey confirmation on this session, and ends every other session of the user: a
 * passkey is removed because a device is lost or not trusted, and its sessions go with it.
 */
export async function removePasskey(userId: string, input: z.input<typeof removePasskeyInput>, sessionToken: string | undefined): Promise<void> {
  const { credential_id } = removePasskeyInput.parse(input);
  await transaction(async (tx) => {
    await assertRecentlyAuthenticated(userId, sessionToken, tx);
    const all = await tx.select().from(authenticators).where(eq(authenticators.userId, userId)).for("update");
    const target = all.find((a) => a.credentialID === credential_id);
    if (!target) throw notFound("passkey", credential_id);
    if (all.length === 1) throw new AppError("conflict", "This is your only passkey: add another one before removing it.");
    await tx.delete(authenticators).where(and(eq(authenticators.userId, userId), eq(authenticators.credentialID, credential_id)));
    await tx.delete(authAccounts).where(and(eq(authAccounts.userId, userId), eq(authAccounts.providerAccountId, target.providerAccountId)));
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), ne(sessions.sessionToken, sessionToken!)))
      .returning({ token: sessions.sessionToken });
    await auditForUser(tx, userId, { action: "passkey.removed", resource: { type: "passkey", id: credential_id }, summary: { other_sessions_ended: ended.length } });
  });
}

/** Ends every session of the user, on every device. */
export async function signOutEverywhere(userId: string): Promise<number> {
  return transaction(async (tx) => {
    const ended = await tx.delete(sessions).where(eq(sessions.userId, userId)).returning({ token: sessions.sessionToken });
    await auditForUser(tx, userId, { action: "sessions.revoked", resource: { type: "user", id: userId }, summary: { sessions: ended.length } });
    return ended.length;
  });
}
