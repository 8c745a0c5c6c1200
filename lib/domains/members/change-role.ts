import { and, eq, ne } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { members, MEMBER_ROLES, workspaces, type MemberRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "./memberships";
import { assertRole, hasRole } from "./roles";
import { withdrawPendingVotes } from "./withdraw-votes";

export const changeRoleInput = z.object({ member_id: z.string().min(1).max(100), role: z.enum(MEMBER_ROLES) });

/**
 * Changes a member's role. Admins manage admins, approvers and viewers; only an owner
 * grants or takes away `owner`; the last owner keeps the role. A member moved to a role that
 * cannot decide approvals (viewer) has their votes on pending approvals withdrawn, in the audit entry.
 */
export async function changeRole(by: MemberRow, input: z.input<typeof changeRoleInput>): Promise<MemberRow> {
  const { member_id, role } = changeRoleInput.parse(input);
  assertRole(by.role, "admin", "change roles");
  return transaction(async (tx) => {
    await lockWorkspaceRoles(tx, by.workspaceId);
    const [target] = await tx.select().from(members).where(and(eq(members.workspaceId, by.workspaceId), eq(members.id, member_id))).for("update");
    if (!target) throw notFound("member", member_id);
    if (target.role === role) return target;
    if (role === "owner" || target.role === "owner") assertRole(by.role, "owner", "grant or remove the owner role");
    if (target.role === "owner") await assertAnotherOwner(tx, target);
    const [updated] = await tx.update(members).set({ role }).where(eq(members.id, target.id)).returning();
    const withdrawn = hasRole(target.role, "approver") && !hasRole(role, "approver") ? await withdrawPendingVotes(tx, target.id) : [];
    await appendAudit(tx, [
      { actor: memberActor(by), action: "member.role_changed", resource: { type: "member", id: target.id }, summary: { from: target.role, to: role, votes_withdrawn_from: withdrawn } },
    ]);
    return updated!;
  });
}

/**
 * Every change of roles or memberships that may touch an owner takes the workspace's row first
 * (FOR NO KEY UPDATE: rows that reference the workspace can still be inserted), as SCIM's do
 * (lib/domains/scim/roles.ts), then the members: one lock order everywhere, so a change in the
 * web app and a SCIM sync queue behind each other instead of deadlocking.
 */
export async function lockWorkspaceRoles(tx: Transaction, workspaceId: string): Promise<void> {
  await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
}

/** Refuses to leave a workspace without an owner. */
export async function assertAnotherOwner(tx: Transaction, target: MemberRow): Promise<void> {
  // Lock the owners so two concurrent demotions cannot both pass this check.
  const others = await tx
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.workspaceId, target.workspaceId), eq(members.role, "owner"), ne(members.id, target.id)))
    .for("update");
  if (others.length === 0) {
    throw new AppError("conflict", "A workspace needs at least one owner: make someone else owner first.");
  }
}
