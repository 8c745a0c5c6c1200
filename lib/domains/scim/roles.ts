import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { members, scimGroupMembers, scimGroups, scimUsers } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { hasRole, withdrawPendingVotes, type MemberRole } from "../members";
import type { ScimActor } from "./tokens";

/**
 * Groups to roles. A SCIM group named `agentdraft-admin`, `agentdraft-approver` or
 * `agentdraft-viewer` (any case) is a role group. Once a workspace has a role group, a
 * provisioned person's role is the highest role group they are in, viewer when none; before,
 * SCIM leaves roles to the web app (new people start as viewers). Owners are never changed by
 * SCIM: the identity provider's token is an admin's, and only an owner grants or takes `owner`.
 */
export const ROLE_GROUPS: Record<string, Exclude<MemberRole, "owner">> = {
  "agentdraft-admin": "admin",
  "agentdraft-approver": "approver",
  "agentdraft-viewer": "viewer",
};

export const roleOfGroup = (displayName: string): Exclude<MemberRole, "owner"> | null => ROLE_GROUPS[displayName.toLowerCase()] ?? null;

const ROLE_GROUP_NAMES = sql.join(
  Object.keys(ROLE_GROUPS).map((n) => sql`${n}`),
  sql`, `,
);

/** The role groups give each of these SCIM users, or null when the workspace has no role group (roles are then the web app's). */
export async function rolesFromGroups(tx: Transaction, workspaceId: string, scimUserIds: string[]): Promise<Map<string, MemberRole> | null> {
  const groups = await tx.select({ id: scimGroups.id, name: scimGroups.displayName }).from(scimGroups).where(and(eq(scimGroups.workspaceId, workspaceId), sql`lower(${scimGroups.displayName}) in (${ROLE_GROUP_NAMES})`));
  if (groups.length === 0) return null;
  const roles = new Map<string, MemberRole>(scimUserIds.map((id) => [id, "viewer"]));
  if (scimUserIds.length === 0) return roles;
  const memberships = await tx
    .select({ userId: scimGroupMembers.scimUserId, groupId: scimGroupMembers.groupId })
    .from(scimGroupMembers)
    .where(and(inArray(scimGroupMembers.groupId, groups.map((g) => g.id)), inArray(scimGroupMembers.scimUserId, scimUserIds)));
  const roleOf = new Map(groups.map((g) => [g.id, roleOfGroup(g.name)!]));
  for (const m of memberships) {
    const role = roleOf.get(m.groupId)!;
    if (hasRole(role, roles.get(m.userId)!)) roles.set(m.userId, role);
  }
  return roles;
}

/**
 * Brings the roles of these provisioned people in line with their role groups (see above), inside
 * the caller's transaction: each active member not an owner whose role differs is changed,
 * with their votes on pending approvals withdrawn when they can no longer decide, and audited.
 */
export async function syncRoles(tx: Transaction, actor: ScimActor, scimUserIds: string[]): Promise<void> {
  if (scimUserIds.length === 0) return;
  const roles = await rolesFromGroups(tx, actor.workspaceId, scimUserIds);
  if (!roles) return;
  const people = await tx
    .select({ scimUserId: scimUsers.id, member: members })
    .from(scimUsers)
    .innerJoin(members, eq(members.id, scimUsers.memberId))
    .where(and(eq(scimUsers.workspaceId, actor.workspaceId), inArray(scimUsers.id, scimUserIds), eq(scimUsers.active, true)))
    .orderBy(members.id)
    .for("update", { of: members });
  for (const { scimUserId, member } of people) {
    const role = roles.get(scimUserId)!;
    if (member.role === "owner" || member.role === role) continue;
    await tx.update(members).set({ role }).where(eq(members.id, member.id));
    const withdrawn = hasRole(member.role, "approver") && !hasRole(role, "approver") ? await withdrawPendingVotes(tx, member.id) : [];
    await appendAudit(tx, [
      { actor, action: "member.role_changed", resource: { type: "member", id: member.id }, summary: { from: member.role, to: role, via: "scim_groups", scim_user_id: scimUserId, votes_withdrawn_from: withdrawn } },
    ]);
  }
}
