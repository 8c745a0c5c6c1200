import { and, desc, eq, isNull } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { invitations, workspaces, type InvitationRow } from "../../../db/schema";
import { hashInvitationToken } from "./invitation-token";

export type InvitationState = "pending" | "accepted" | "revoked" | "expired";

export const invitationState = (i: InvitationRow, now = new Date()): InvitationState =>
  i.acceptedAt ? "accepted" : i.revokedAt ? "revoked" : i.expiresAt <= now ? "expired" : "pending";

/** The invitation a link's token names, with its workspace name; null when there is none. */
export async function findInvitationByToken(token: string): Promise<{ invitation: InvitationRow; workspaceName: string } | null> {
  if (!token || token.length > 200) return null;
  const q = await queryable();
  const [row] = await q
    .select({ invitation: invitations, workspaceName: workspaces.name })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .where(eq(invitations.tokenHash, hashInvitationToken(token)));
  return row ?? null;
}

/** Invitations not yet accepted, revoked or expired. */
export async function listPendingInvitations(workspaceId: string): Promise<InvitationRow[]> {
  const q = await queryable();
  const rows = await q
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .orderBy(desc(invitations.id));
  return rows.filter((r) => invitationState(r) === "pending");
}
