import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { invitations, type MemberRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { invitationState } from "./find-invitation";

export const revokeInvitationInput = z.object({ invitation_id: z.string().min(1).max(100) });

/** Revokes a pending invitation; revoking one that is no longer pending changes nothing. */
export async function revokeInvitation(by: MemberRow, input: z.input<typeof revokeInvitationInput>): Promise<void> {
  const { invitation_id } = revokeInvitationInput.parse(input);
  assertRole(by.role, "admin", "revoke invitations");
  await transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.workspaceId, by.workspaceId), eq(invitations.id, invitation_id)))
      .for("update");
    if (!row) throw notFound("invitation", invitation_id);
    if (invitationState(row) !== "pending") return;
    await tx.update(invitations).set({ revokedAt: new Date() }).where(eq(invitations.id, row.id));
    await appendAudit(tx, [{ actor: memberActor(by), action: "invitation.revoked", resource: { type: "invitation", id: row.id }, summary: { email: row.email } }]);
  });
}
