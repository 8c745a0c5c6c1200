import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { members, scimGroupMembers, scimGroups, scimUsers, workspaces } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { hasRole, withdrawPendingVotes, type MemberRole } from "../members";
import { scimError } from "./errors";
import type { ScimActor } from "./tokens";

/**
 * Groups to roles. A SCIM group named `agentdraft-admin`, `agentdraft-approver` or
 * `agentdraft-viewer` (any case) is a role group; so is `agentdraft-owner` when an owner has
 * switched "Let SCIM grant the owner role" on (workspaces.scim_owner_group). Once a workspace has a
 * role group, a provisioned person's role is the highest role group they are in, viewer when none;
 * before, SCIM leaves roles to the web app (new people start as viewers). With the switch off SCIM
 * never changes an owner. With it on, SCIM takes the owner role away only once the workspace has an
 * agentdraft-owner group (or as that group is deleted or renamed): until the identity provider pushes
 * it, owners stay as they are. A change that would leave the workspace without an owner is refused
 * as a whole (400 mutability: the change does not fit the workspace's current state).
 */
export const ROLE_GROUPS: Record<string, MemberRole> = {
  "agentdraft-owner": "owner",
  "agentdraft-admin": "admin",
  "agentdraft-approver": "approver",
  "agentdraft-viewer": "viewer",
};

export const OWNER_GROUP = "agentdraft-owner";

/** The role a group of this name gives; `agentdraft-owner` only with the switch on (else an ordinary group). */
export const roleOfGroup = (displayName: string, ownerGroupOn: boolean): MemberRole | null => {
  const role = ROLE_GROUPS[displayName.toLowerCase()] ?? null;
  return role === "owner" && !ownerGroupOn ? null : role;
};

const roleGroupNames = (ownerGroupOn: boolean) =>
  sql.join(
    Object.keys(ROLE_GROUPS)
      .filter((n) => ownerGroupOn || n !== OWNER_GROUP)
      .map((n) => sql`${n}`),
    sql`, `,
  );

/**
 * Reads the workspace's owner-group switch and holds it (FOR NO KEY UPDATE, which inserts referencing
 * the workspace do not wait for) until the transaction ends: SCIM's role changes in one workspace run
 * one after another, so two of them cannot each see another owner and together remove both, and the
 * switch cannot flip under one. Call before locking any member.
 */
export async function lockOwnerSwitch(tx: Transaction, workspaceId: string): Promise<boolean> {
  const [row] = await tx.select({ on: workspaces.scimOwnerGroup }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
  return row?.on ?? false;
}

/** The role groups give each of these SCIM users, or null when the workspace has no role group (roles are then the web app's). */
export async function rolesFromGroups(tx: Transaction, workspaceId: string, scimUserIds: string[], ownerGroupOn: boolean): Promise<Map<string, MemberRole> | null> {
  return (await groupRoles(tx, workspaceId, scimUserIds, ownerGroupOn))?.roles ?? null;
}

async function groupRoles(tx: Transaction, workspaceId: string, scimUserIds: string[], ownerGroupOn: boolean): Promise<{ roles: Map<string, MemberRole>; hasOwnerGroup: boolean } | null> {
  const groups = await tx
    .select({ id: scimGroups.id, name: scimGroups.displayName })
    .from(scimGroups)
    .where(and(eq(scimGroups.workspaceId, workspaceId), sql`lower(${scimGroups.displayName}) in (${roleGroupNames(ownerGroupOn)})`));
  if (groups.length === 0) return null;
  const roles = new Map<string, MemberRole>(scimUserIds.map((id) => [id, "viewer"]));
  const hasOwnerGroup = groups.some((g) => g.name.toLowerCase() === OWNER_GROUP);
  if (scimUserIds.length === 0) return { roles, hasOwnerGroup };
  const memberships = await tx
    .select({ userId: scimGroupMembers.scimUserId, groupId: scimGroupMembers.groupId })
    .from(scimGroupMembers)
    .where(and(inArray(scimGroupMembers.groupId, groups.map((g) => g.id)), inArray(scimGroupMembers.scimUserId, scimUserIds)));
  const roleOf = new Map(groups.map((g) => [g.id, roleOfGroup(g.name, ownerGroupOn)!]));
  for (const m of memberships) {
    const role = roleOf.get(m.groupId)!;
    if (hasRole(role, roles.get(m.userId)!)) roles.set(m.userId, role);
  }
  return { roles, hasOwnerGroup };
}

/** The owners of the workspace, locked (in id order) until the transaction ends. */
async function lockOwners(tx: Transaction, workspaceId: string): Promise<string[]> {
  const rows = await tx.select({ id: members.id }).from(members).where(and(eq(members.workspaceId, workspaceId), eq(members.role, "owner"))).orderBy(members.id).for("update");
  return rows.map((r) => r.id);
}

/** The refusal of a change that would leave no owner: RFC 7644 §3.12 `mutability` (the change does not fit the resource's current state). */
export const lastOwnerRefusal = (who: string) =>
  scimError(400, "mutability", `${who} would leave this workspace without an owner: add another owner (to agentdraft-owner, or in AgentDraft's Members page) first. Nothing was changed.`);

/**
 * Refuses (nothing changes: the caller's transaction rolls back) when taking the owner role from
 * these members would leave the workspace without one. Call after lockOwnerSwitch.
 */
export async function assertOwnersRemain(tx: Transaction, workspaceId: string, leaving: string[], who: string): Promise<void> {
  if (leaving.length === 0) return;
  const owners = await lockOwners(tx, workspaceId);
  const gone = new Set(leaving);
  if (owners.some((id) => gone.has(id)) && owners.every((id) => gone.has(id))) throw lastOwnerRefusal(who);
}

/**
 * Brings the roles of these provisioned people in line with their role groups (see above), inside
 * the caller's transaction: each active member whose role differs is changed (an owner only with the
 * switch on, and never the last ones), with their votes on pending approvals withdrawn when they can
 * no longer decide, and audited. `keepOwners` (a User created or reactivated, in no group yet): an
 * owner taken over keeps the role; SCIM takes it away only through a change of groups.
 * `ownerGroupGone`: the owner group was just deleted or renamed: its former members leave it (when
 * other role groups remain; with none left, roles stay as they are).
 */
export async function syncRoles(tx: Transaction, actor: ScimActor, scimUserIds: string[], opts: { keepOwners?: boolean; ownerGroupGone?: boolean } = {}): Promise<void> {
  if (scimUserIds.length === 0) return;
  const ownerGroupOn = await lockOwnerSwitch(tx, actor.workspaceId);
  const found = await groupRoles(tx, actor.workspaceId, scimUserIds, ownerGroupOn);
  if (!found) return; // no role group left: roles stay as they are, owners included
  const { roles } = found;
  const demotesOwners = ownerGroupOn && !opts.keepOwners && (found.hasOwnerGroup || opts.ownerGroupGone);
  if (ownerGroupOn) await lockOwners(tx, actor.workspaceId); // owners first, in id order, as the web app's last-owner check takes them
  const people = await tx
    .select({ scimUserId: scimUsers.id, member: members })
    .from(scimUsers)
    .innerJoin(members, eq(members.id, scimUsers.memberId))
    .where(and(eq(scimUsers.workspaceId, actor.workspaceId), inArray(scimUsers.id, scimUserIds), eq(scimUsers.active, true)))
    .orderBy(members.id)
    .for("update", { of: members });
  const changes = people
    .map(({ scimUserId, member }) => ({ scimUserId, member, role: roles.get(scimUserId)! }))
    .filter(({ member, role }) => member.role !== role && (member.role !== "owner" || demotesOwners));
  const demotedOwners = changes.filter((c) => c.member.role === "owner").map((c) => c.member.id);
  await assertOwnersRemain(tx, actor.workspaceId, demotedOwners, "This change to the role groups");
  for (const { scimUserId, member, role } of changes) {
    await tx.update(members).set({ role }).where(eq(members.id, member.id));
    const withdrawn = hasRole(member.role, "approver") && !hasRole(role, "approver") ? await withdrawPendingVotes(tx, member.id) : [];
    await appendAudit(tx, [
      { actor, action: "member.role_changed", resource: { type: "member", id: member.id }, summary: { from: member.role, to: role, via: "scim_groups", scim_user_id: scimUserId, votes_withdrawn_from: withdrawn } },
    ]);
  }
}
