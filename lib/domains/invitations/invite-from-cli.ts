import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { invitations, members, type InvitationRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { operatorActor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { getWorkspace } from "../workspaces";
import { hashInvitationToken, INVITATION_TTL_MS, newInvitationToken } from "./invitation-token";

export const operatorInvitationInput = z.object({
  workspace_id: z.string().min(1),
  email: z.email("an email address").trim().toLowerCase().max(254),
  role: z.enum(["owner", "admin", "approver", "viewer"]),
});

/**
 * The operator (a shell on the server, `agentdraft member invite`) invites someone, any role
 * including owner: how the first owner of a deployment joins without a public first run.
 * Nothing is mailed: the one-time link is returned to be handed over. Audited as the operator.
 */
export async function inviteFromCli(input: z.input<typeof operatorInvitationInput>, baseUrl: string): Promise<{ invitation: InvitationRow; link: string }> {
  const { workspace_id, email, role } = operatorInvitationInput.parse(input);
  const workspace = await getWorkspace(workspace_id);
  const token = newInvitationToken();
  const invitation = await transaction(async (tx) => {
    const [existing] = await tx.select({ id: members.id }).from(members).where(and(eq(members.workspaceId, workspace.id), sql`lower(${members.email}) = ${email}`));
    if (existing) throw new AppError("conflict", `${email} is already a member of this workspace.`);
    await tx
      .update(invitations)
      .set({ revokedAt: new Date() })
      .where(and(eq(invitations.workspaceId, workspace.id), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
    const [row] = await tx
      .insert(invitations)
      .values({ id: newId("invitation"), workspaceId: workspace.id, email, role, tokenHash: hashInvitationToken(token), invitedBy: "operator:cli", expiresAt: new Date(Date.now() + INVITATION_TTL_MS) })
      .returning();
    await appendAudit(tx, [{ actor: operatorActor(workspace.id), action: "invitation.created", resource: { type: "invitation", id: row!.id }, summary: { email, role, via: "cli" } }]);
    return row!;
  });
  return { invitation, link: `${baseUrl.replace(/\/$/, "")}/invite/${token}` };
}
