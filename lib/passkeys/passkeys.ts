import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { transaction, queryable } from "../../db/transaction";
import type { Transaction } from "../../db/client";
import { authAccounts, authenticators, members, sessions, type AuthenticatorRow } from "../../db/schema";
import { AppError, notFound } from "../errors";
import { appendAudit, type AuditInput } from "../audit/append-audit";

export async function listPasskeys(userId: string): Promise<AuthenticatorRow[]> {
  const q = await queryable();
  return q.select().from(authenticators).where(eq(authenticators.userId, userId)).orderBy(asc(authenticators.createdAt));
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

/** Removes one of the user's passkeys, never the last one (it is their only way in). */
export async function removePasskey(userId: string, input: z.input<typeof removePasskeyInput>): Promise<void> {
  const { credential_id } = removePasskeyInput.parse(input);
  await transaction(async (tx) => {
    const all = await tx.select().from(authenticators).where(eq(authenticators.userId, userId)).for("update");
    const target = all.find((a) => a.credentialID === credential_id);
    if (!target) throw notFound("passkey", credential_id);
    if (all.length === 1) throw new AppError("conflict", "This is your only passkey: add another one before removing it.");
    await tx.delete(authenticators).where(and(eq(authenticators.userId, userId), eq(authenticators.credentialID, credential_id)));
    await tx.delete(authAccounts).where(and(eq(authAccounts.userId, userId), eq(authAccounts.providerAccountId, target.providerAccountId)));
    await auditForUser(tx, userId, { action: "passkey.removed", resource: { type: "passkey", id: credential_id }, summary: {} });
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
