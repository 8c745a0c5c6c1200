import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { invitations, members, users, type InvitationRow, type MemberRow, type UserRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { appendAudit } from "../../platform/audit/append-audit";
import { invitationState } from "./find-invitation";
import { hashInvitationToken } from "./invitation-token";

export type Invitee = Pick<UserRow, "id" | "email" | "name">;

/**
 * How the person accepting proved who they are: holding the link (it proves the address only if
 * it went out through a mail provider, `link_sent_at`), or an SSO sign-in (the workspace's
 * identity provider vouched for the address, on a domain the workspace verified).
 */
export type AcceptedBy = "link" | "sso";

/** The invitation a link's token names, locked for this transaction; refused when there is none. */
export async function lockInvitationByToken(tx: Transaction, token: string): Promise<InvitationRow> {
  const [invitation] = await tx.select().from(invitations).where(eq(invitations.tokenHash, hashInvitationToken(token))).for("update");
  if (!invitation) throw new AppError("not_found", "This invitation link is not valid.");
  return invitation;
}

/**
 * The live (pending) invitation of `email` to the workspace, locked for this transaction, or null.
 * Creating one revokes the earlier ones, so there is at most one; the newest wins regardless. A
 * racing transaction that accepts it first makes this answer null once it commits (the row no
 * longer matches): the caller then finds the member it created.
 */
export async function lockLiveInvitationFor(tx: Transaction, workspaceId: string, email: string): Promise<InvitationRow | null> {
  const rows = await tx
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.email, email.trim().toLowerCase()), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, new Date())))
    .orderBy(desc(invitations.createdAt))
    .for("update");
  return rows.find((r) => invitationState(r) === "pending") ?? null;
}

/**
 * Turns a pending invitation (locked by the caller) into a member row for this user, once: the
 * invitation must still be pending and addressed to the user's email, and the email not yet a
 * member. Marks it accepted, proves the address when the way it was accepted proves it, and
 * audits `invitation.accepted`.
 */
export async function claimInvitation(tx: Transaction, invitation: InvitationRow, user: Invitee, by: AcceptedBy = "link"): Promise<MemberRow> {
  const state = invitationState(invitation);
  if (state !== "pending") throw new AppError("conflict", `This invitation was ${state === "accepted" ? "already used" : state}.`);
  if (invitation.email !== user.email.toLowerCase()) {
    throw new AppError("forbidden", `This invitation is for ${invitation.email}; you are signed in as ${user.email}.`);
  }
  const [already] = await tx
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.workspaceId, invitation.workspaceId), sql`lower(${members.email}) = ${invitation.email}`));
  if (already) throw new AppError("conflict", "You are already a member of this workspace.");
  const [member] = await tx
    .insert(members)
    .values({ id: newId("member"), workspaceId: invitation.workspaceId, email: invitation.email, name: user.name, role: invitation.role, userId: user.id })
    .returning();
  await tx.update(invitations).set({ acceptedAt: new Date(), memberId: member!.id }).where(eq(invitations.id, invitation.id));
  // The link reached only the invitee's mailbox (sent through a provider, stored redacted): holding it proves the address.
  // A captured link (admins can read it) or a CLI link proves nothing: the member is bound to the invitation, the address unproven.
  // An SSO sign-in proves it: the identity provider asserted this address, on a domain the workspace proved by DNS.
  const emailProven = by === "sso" || invitation.linkSentAt !== null;
  if (emailProven) await tx.update(users).set({ emailVerified: sql`coalesce(${users.emailVerified}, now())` as unknown as Date }).where(eq(users.id, user.id));
  await appendAudit(tx, [
    {
      actor: { type: "member", workspaceId: invitation.workspaceId, memberId: member!.id },
      action: "invitation.accepted",
      resource: { type: "invitation", id: invitation.id },
      summary: { email: invitation.email, role: invitation.role, member_id: member!.id, email_proven: emailProven, ...(by === "sso" ? { via: "sso" } : {}) },
    },
  ]);
  return member!;
}
