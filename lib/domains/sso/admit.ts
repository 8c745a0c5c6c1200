import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { members, scimUsers, sessions, users, type MemberRow, type SsoConnectionRow, type SsoProtocol } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { newId } from "../../platform/ids";
import { claimInvitation, lockLiveInvitationFor } from "../invitations";
import { hasPasskey } from "../passkeys";
import { ssoRouteForEmail } from "./domains";
import { SsoRefusal } from "./refusal";

/** As Auth.js's database sessions (lib/domains/auth/auth.ts). */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export type SsoSignedIn = { sessionToken: string; expires: Date; next: string; userId: string; memberId: string; workspaceId: string; needsPasskey: boolean };

/** Who the identity provider vouched for, after the protocol's own checks (OIDC's ID token, SAML's signed assertion). */
export type SsoIdentity = { email: string | undefined; name: string | null; subject: string; protocol: SsoProtocol };

/**
 * The part of every SSO sign-in after the protocol: the asserted email must be on a verified
 * domain of this connection. The person then needs a membership of the workspace: an existing
 * member; else a live invitation of that email, accepted as its link would be (the invited role,
 * `invitation.accepted`); else a new viewer when the connection provisions just in time. Never
 * whom SCIM deprovisioned. They get a user if new, and a database session (not a passkey proof:
 * approvals still ask for one). Audited as `sso.signed_in` with the protocol.
 */
export async function admitSsoPerson(connection: SsoConnectionRow, who: SsoIdentity, next: string): Promise<SsoSignedIn> {
  const email = who.email?.trim().toLowerCase();
  const route = email ? await ssoRouteForEmail(email) : null;
  if (!email || !route || route.connection.id !== connection.id) {
    throw new SsoRefusal("email_not_covered", `Your identity provider signed you in as ${email ?? "a person without an email"}, which is not on a verified domain of this workspace's SSO connection.`);
  }
  const signedIn = await transaction(async (tx) => {
    const name = who.name ? who.name.slice(0, 100) : null;
    await tx.insert(users).values({ id: newId("user"), email, name, emailVerified: new Date() }).onConflictDoNothing();
    const [user] = await tx.select().from(users).where(sql`lower(${users.email}) = ${email}`);
    let member = await memberOf(tx, connection.workspaceId, email);
    let joined: "invitation" | "just_in_time" | null = null;
    if (!member) {
      // Whom SCIM deprovisioned stays out: neither an invitation nor just-in-time provisioning undoes the identity provider's decision.
      const [deprovisioned] = await tx
        .select({ id: scimUsers.id })
        .from(scimUsers)
        .where(and(eq(scimUsers.workspaceId, connection.workspaceId), sql`lower(${scimUsers.email}) = ${email}`, eq(scimUsers.active, false)));
      if (deprovisioned) throw new SsoRefusal("not_member", "Your identity provider has deprovisioned you from this workspace: ask its admin.");
      // Signing in accepts a live invitation (on a "require SSO" domain its link cannot register a passkey: this is the way in).
      const invitation = await lockLiveInvitationFor(tx, connection.workspaceId, email);
      // A sign-in racing this one may have accepted it meanwhile (the lock waited for it): then its member is there now.
      member = await memberOf(tx, connection.workspaceId, email);
      if (!member && invitation) {
        member = await claimInvitation(tx, invitation, user!, "sso");
        joined = "invitation";
      } else if (!member) {
        if (!connection.justInTime) throw new SsoRefusal("not_member", "You are not a member of this workspace: ask an admin to invite you (or to provision you from your identity provider).");
        // A racing first sign-in of the same person may insert first: then this one signs in as that member.
        const [inserted] = await tx.insert(members).values({ id: newId("member"), workspaceId: connection.workspaceId, email, name, role: "viewer", userId: user!.id }).onConflictDoNothing().returning();
        if (inserted) joined = "just_in_time";
        member = inserted ?? (await memberOf(tx, connection.workspaceId, email));
        if (!member) throw new SsoRefusal("not_member", "You are not a member of this workspace: ask an admin to invite you.");
      }
    }
    if (member.userId && member.userId !== user!.id) throw new SsoRefusal("not_member", "Your membership belongs to another account: ask a workspace admin.");
    if (!member.userId) member = (await tx.update(members).set({ userId: user!.id }).where(eq(members.id, member.id)).returning())[0]!;
    const sessionToken = randomBytes(32).toString("base64url");
    const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000);
    // authenticated_at in the past: an SSO sign-in is not a passkey proof (passkey changes and approvals ask for one).
    await tx.insert(sessions).values({ sessionToken, userId: user!.id, expires, authenticatedAt: new Date(0), signedInVia: "sso" });
    const actor = { type: "member" as const, workspaceId: connection.workspaceId, memberId: member.id };
    await appendAudit(tx, [
      // An accepted invitation is audited by its acceptance (invitation.accepted), as when the link is used.
      ...(joined === "just_in_time" ? [{ actor, action: "member.joined", resource: { type: "member", id: member.id }, summary: { email, role: "viewer", via: "sso" } }] : []),
      {
        actor,
        action: "sso.signed_in",
        resource: { type: "member", id: member.id },
        summary: { email, protocol: who.protocol, issuer: connection.issuer, subject: who.subject, connection_id: connection.id },
      },
    ]);
    return { sessionToken, expires, next, userId: user!.id, memberId: member.id, workspaceId: connection.workspaceId };
  });
  return { ...signedIn, needsPasskey: !(await hasPasskey(signedIn.userId)) };
}

/** The workspace's member with this email, locked for this transaction, or null. */
async function memberOf(tx: Transaction, workspaceId: string, email: string): Promise<MemberRow | null> {
  const [member] = await tx
    .select()
    .from(members)
    .where(and(eq(members.workspaceId, workspaceId), sql`lower(${members.email}) = ${email}`))
    .for("update");
  return member ?? null;
}
