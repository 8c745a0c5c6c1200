import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { members, sessions, type MemberRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "./memberships";
import { assertRole } from "./roles";
import { assertAnotherOwner, lockWorkspaceRoles } from "./change-role";
import { withdrawPendingVotes } from "./withdraw-votes";

export const removeMemberInput = z.object({ member_id: z.string().min(1).max(100) });

/**
 * Removes a member from the workspace. Admins remove non-owners; only an owner removes an
 * owner, never the last one. Nobody removes themselves here. Their decisions on resolved
 * approvals stay as history; their votes on approvals still pending are withdrawn (a departed
 * or compromised approver no longer counts towards a quorum). The removed person's sessions
 * end when this was their last workspace.
 */
export async function removeMember(by: MemberRow, input: z.input<typeof removeMemberInput>): Promise<void> {
  const { member_id } = removeMemberInput.parse(input);
  assertRole(by.role, "admin", "remove members");
  if (member_id === by.id) throw new AppError("conflict", "You cannot remove yourself; ask another admin or owner.");
  await transaction(async (tx) => {
    await lockWorkspaceRoles(tx, by.workspaceId);
    const [target] = await tx.select().from(members).where(and(eq(members.workspaceId, by.workspaceId), eq(members.id, member_id))).for("update");
    if (!target) throw notFound("member", member_id);
    if (target.role === "owner") {
      assertRole(by.role, "owner", "remove an owner");
      await assertAnotherOwner(tx, target);
    }
    const { withdrawn } = await endMembership(tx, target);
    await appendAudit(tx, [
      { actor: memberActor(by), action: "member.removed", resource: { type: "member", id: target.id }, summary: { email: target.email, role: target.role, votes_withdrawn_from: withdrawn } },
    ]);
  });
}

/**
 * Ends a membership inside the caller's transaction (the target row locked by the caller):
 * withdraws the member's votes on pending approvals, deletes the row (their live streams end
 * with it: event_stream_slots cascade) and, when it was the person's last workspace, their
 * sessions. Decisions on resolved approvals and the audit trail keep the member's id.
 */
export async function endMembership(tx: Transaction, target: MemberRow): Promise<{ withdrawn: string[]; sessionsEnded: boolean }> {
  const withdrawn = await withdrawPendingVotes(tx, target.id);
  await tx.delete(members).where(eq(members.id, target.id));
  let sessionsEnded = false;
  if (target.userId) {
    const [other] = await tx.select({ id: members.id }).from(members).where(eq(members.userId, target.userId)).limit(1);
    if (!other) {
      await tx.delete(sessions).where(eq(sessions.userId, target.userId));
      sessionsEnded = true;
    }
  }
  return { withdrawn, sessionsEnded };
}
