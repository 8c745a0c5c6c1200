import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { invitations, members, workspaces, type InvitationRow, type MemberRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { sendMail, type MailTransport, configuredTransport } from "../mail";
import { hashInvitationToken, INVITATION_TTL_MS, newInvitationToken } from "./invitation-token";

export const createInvitationInput = z.object({
  email: z.email("enter an email address").trim().toLowerCase().max(254),
  role: z.enum(["admin", "approver", "viewer"]),
});

/**
 * Invites someone by email: records the invitation (token hashed), audits it, then mails the
 * link through the mail module (sent, or captured when no provider is configured). Only a link
 * that was sent proves the address when accepted (`link_sent_at`): a captured one is readable
 * by admins, so its member's address stays unproven.
 * `baseUrl` is the web app's origin, for the link. `ssoRequired`: the address is on a domain whose
 * workspace requires SSO (the caller asks the sso domain, which depends on this one), so the
 * mail says the link leads to their identity provider's sign-in, not to creating a passkey first.
 */
export async function createInvitation(
  by: MemberRow,
  input: z.input<typeof createInvitationInput>,
  baseUrl: string,
  transport: MailTransport | null = configuredTransport(),
  how: { ssoRequired?: boolean } = {},
): Promise<{ invitation: InvitationRow; mail: { id: string; status: "sent" | "captured" } }> {
  const { email, role } = createInvitationInput.parse(input);
  assertRole(by.role, "admin", "invite members");
  const token = newInvitationToken();
  const { invitation, workspaceName } = await transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: members.id })
      .from(members)
      .where(and(eq(members.workspaceId, by.workspaceId), sql`lower(${members.email}) = ${email}`));
    if (existing) throw new AppError("conflict", `${email} is already a member of this workspace.`, { errors: [{ field: "email", message: "already a member" }] });
    // A new invitation replaces any pending one for the same address.
    await tx
      .update(invitations)
      .set({ revokedAt: new Date() })
      .where(and(eq(invitations.workspaceId, by.workspaceId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
    const [row] = await tx
      .insert(invitations)
      .values({
        id: newId("invitation"),
        workspaceId: by.workspaceId,
        email,
        role,
        tokenHash: hashInvitationToken(token),
        invitedBy: by.id,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      })
      .returning();
    const [ws] = await tx.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, by.workspaceId));
    await appendAudit(tx, [{ actor: memberActor(by), action: "invitation.created", resource: { type: "invitation", id: row!.id }, summary: { email, role } }]);
    return { invitation: row!, workspaceName: ws!.name };
  });
  const link = `${baseUrl.replace(/\/$/, "")}/invite/${token}`;
  const mail = await sendMail(
    {
      workspaceId: by.workspaceId,
      to: email,
      kind: "invitation",
      subject: `You are invited to ${workspaceName} on AgentDraft`,
      text:
        `${by.name ?? by.email} invited you to join the workspace "${workspaceName}" on AgentDraft as ${role}.\n\n` +
        (how.ssoRequired
          ? `Your organisation signs in to AgentDraft with single sign-on: open the link, sign in with your organisation's account, then add a passkey:\n${link}\n\n`
          : `Accept the invitation and create your passkey here:\n${link}\n\n`) +
        `The link works once and expires in 7 days.`,
    },
    transport,
    { secrets: [token] },
  );
  if (mail.status !== "sent") return { invitation, mail };
  // Delivered through the provider, kept redacted: only the invitee's mailbox can accept it, so accepting proves the address.
  const [updated] = await (await queryable()).update(invitations).set({ linkSentAt: new Date() }).where(eq(invitations.id, invitation.id)).returning();
  return { invitation: updated ?? invitation, mail };
}
