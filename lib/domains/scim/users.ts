import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import type { Queryable, Transaction } from "../../../db/client";
import { members, scimGroupMembers, scimGroups, scimUsers, users, type MemberRow, type ScimUserRow } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { newId } from "../../platform/ids";
import { endMembership } from "../members";
import { scimError } from "./errors";
import { stringValue, type FilterTerm } from "./filter";
import type { ListParams } from "./list-params";
import { parsePatch } from "./patch";
import { assertOwnersRemain, lockOwnerSwitch, rolesFromGroups, syncRoles } from "./roles";
import { listResponse, serializeUser } from "./serialize";
import type { ScimActor } from "./tokens";
import { applyUserPatch, attributesOf, memberName, userFromResource, type UserAttributes } from "./user-attributes";

const notFoundUser = (id: string) => scimError(404, null, `No User with id ${id} in this workspace.`);

/**
 * POST /Users: provisions a person. Active, they become a member of the workspace: a member who
 * already has this email (invited before SSO) is taken over, role included, rather than
 * duplicated; a new one starts as viewer (groups may raise it later). A second User with the same userName, or the
 * email of a member another User already is, is 409 uniqueness, also when two creates race (the
 * database's unique indexes decide).
 */
export async function createUser(actor: ScimActor, body: unknown, base: string) {
  const attrs = userFromResource(body);
  const row = await transaction(async (tx) => {
    await lockOwnerSwitch(tx, actor.workspaceId); // the workspace before any member: the lock order of roles.ts
    await assertUserNameFree(tx, actor.workspaceId, attrs.userName, null);
    const id = newId("scimUser");
    let memberId = newId("member");
    let adopted = false;
    if (attrs.active) {
      const [existing] = await tx.select().from(members).where(and(eq(members.workspaceId, actor.workspaceId), sql`lower(${members.email}) = ${attrs.email}`)).for("update");
      if (existing) {
        await assertNotProvisioned(tx, existing);
        memberId = existing.id;
        adopted = true;
        await tx.update(members).set({ name: memberName(attrs) ?? existing.name }).where(eq(members.id, existing.id));
      } else {
        await tx.insert(members).values({ id: memberId, workspaceId: actor.workspaceId, email: attrs.email, name: memberName(attrs), role: "viewer" });
      }
    }
    const [inserted] = await tx
      .insert(scimUsers)
      .values({ id, workspaceId: actor.workspaceId, ...attrs, memberId })
      .returning();
    await appendAudit(tx, [
      { actor, action: "scim.user_provisioned", resource: { type: "scim_user", id }, summary: { user_name: attrs.userName, email: attrs.email, active: attrs.active, member_id: memberId, took_over_member: adopted } },
    ]);
    if (attrs.active) await syncRoles(tx, actor, [id], { keepOwners: true }); // role groups, when the workspace has any, decide (a member taken over included; an owner stays one)
    return inserted!;
  });
  return serializeUser(row, [], base);
}

export async function getUser(actor: ScimActor, id: string, base: string) {
  const q = await queryable();
  const [row] = await q.select().from(scimUsers).where(and(eq(scimUsers.workspaceId, actor.workspaceId), eq(scimUsers.id, id)));
  if (!row) throw notFoundUser(id);
  return serializeUser(row, (await groupsOf(q, [id])).get(id) ?? [], base);
}

/** GET /Users: filtered (userName, externalId, id, emails.value, active, displayName with eq), paged by startIndex and count, oldest first. */
export async function listUsers(actor: ScimActor, params: ListParams, base: string) {
  const where = and(eq(scimUsers.workspaceId, actor.workspaceId), ...params.terms.map(userCondition));
  const q = await queryable();
  const [{ total }] = (await q.select({ total: sql<number>`count(*)::int` }).from(scimUsers).where(where)) as [{ total: number }];
  const rows = params.count === 0 ? [] : await q.select().from(scimUsers).where(where).orderBy(asc(scimUsers.createdAt), asc(scimUsers.id)).limit(params.count).offset(params.startIndex - 1);
  const groups = await groupsOf(q, rows.map((r) => r.id));
  return listResponse(rows.map((r) => serializeUser(r, groups.get(r.id) ?? [], base)), total, params.startIndex);
}

function userCondition(term: FilterTerm): SQL {
  switch (term.attr) {
    case "username":
      return sql`lower(${scimUsers.userName}) = lower(${stringValue(term)})`;
    case "externalid":
      return eq(scimUsers.externalId, stringValue(term));
    case "id":
      return eq(scimUsers.id, stringValue(term));
    case "emails.value":
    case "emails":
      return sql`${scimUsers.email} = lower(${stringValue(term)})`;
    case "displayname":
      return eq(scimUsers.displayName, stringValue(term));
    case "active":
      if (typeof term.value !== "boolean") throw scimError(400, "invalidFilter", "active compares to true or false.");
      return eq(scimUsers.active, term.value);
    default:
      throw scimError(400, "invalidFilter", `Users cannot be filtered by ${term.attr}: use userName, externalId, id, emails.value, displayName or active.`);
  }
}

/** PUT /Users/{id}: the resource as sent replaces what AgentDraft keeps (absent optional attributes are cleared). */
export async function replaceUser(actor: ScimActor, id: string, body: unknown, base: string) {
  const next = userFromResource(body);
  return updateUser(actor, id, () => next, base);
}

/** PATCH /Users/{id}: Okta's and Entra ID's operations (see patch.ts), applied in order, then saved as one change. */
export async function patchUser(actor: ScimActor, id: string, body: unknown, base: string) {
  const ops = parsePatch(body);
  return updateUser(actor, id, (current) => applyUserPatch(current, ops), base);
}

async function updateUser(actor: ScimActor, id: string, change: (current: UserAttributes) => UserAttributes, base: string) {
  const row = await transaction(async (tx) => {
    const current = await lockUser(tx, actor.workspaceId, id);
    await lockOwnerSwitch(tx, actor.workspaceId); // the workspace before any member: the lock order of roles.ts
    const next = change(attributesOf(current));
    return saveUser(tx, actor, current, next);
  });
  const q = await queryable();
  return serializeUser(row, (await groupsOf(q, [id])).get(id) ?? [], base);
}

/** DELETE /Users/{id}: deprovisions the person (as active false) and forgets the User; the audit trail keeps what they did. */
export async function deleteUser(actor: ScimActor, id: string): Promise<void> {
  await transaction(async (tx) => {
    const current = await lockUser(tx, actor.workspaceId, id);
    await lockOwnerSwitch(tx, actor.workspaceId);
    const ended = current.active ? await deactivate(tx, current) : null;
    await tx.delete(scimUsers).where(eq(scimUsers.id, id));
    await appendAudit(tx, [
      { actor, action: "scim.user_deleted", resource: { type: "scim_user", id }, summary: { user_name: current.userName, email: current.email, member_id: current.memberId, ...(ended ? deprovisionSummary(ended) : {}) } },
    ]);
  });
}

async function lockUser(tx: Transaction, workspaceId: string, id: string): Promise<ScimUserRow> {
  const [row] = await tx.select().from(scimUsers).where(and(eq(scimUsers.workspaceId, workspaceId), eq(scimUsers.id, id))).for("update");
  if (!row) throw notFoundUser(id);
  return row;
}

/** Saves the new attributes: the member follows (email, name), and a change of `active` deprovisions or restores them. One audit entry a change. */
async function saveUser(tx: Transaction, actor: ScimActor, current: ScimUserRow, next: UserAttributes): Promise<ScimUserRow> {
  const before = attributesOf(current);
  const changed = (Object.keys(next) as (keyof UserAttributes)[]).filter((k) => next[k] !== before[k]);
  if (changed.length === 0) return current;
  if (next.userName.toLowerCase() !== before.userName.toLowerCase()) await assertUserNameFree(tx, actor.workspaceId, next.userName, current.id);
  let userId = current.userId;
  let memberId = current.memberId;
  let summary: Record<string, unknown> = {};
  if (before.active && !next.active) {
    const ended = await deactivate(tx, current);
    userId = ended.userId;
    summary = deprovisionSummary(ended);
  } else if (!before.active && next.active) {
    const restored = await reactivate(tx, current, next);
    memberId = restored.memberId;
    summary = restored;
  } else if (next.active && (next.email !== before.email || memberName(next) !== memberName(before))) {
    if (next.email !== before.email) await assertEmailFree(tx, actor.workspaceId, next.email, current.memberId);
    await tx.update(members).set({ email: next.email, name: memberName(next) }).where(eq(members.id, current.memberId));
  }
  const [saved] = await tx.update(scimUsers).set({ ...next, userId, memberId, updatedAt: sql`now()` as unknown as Date }).where(eq(scimUsers.id, current.id)).returning();
  const action = before.active === next.active ? "scim.user_updated" : next.active ? "scim.user_reactivated" : "scim.user_deactivated";
  await appendAudit(tx, [
    { actor, action, resource: { type: "scim_user", id: current.id }, summary: { user_name: next.userName, member_id: memberId, changed, ...(next.email !== before.email ? { email: { from: before.email, to: next.email } } : {}), ...summary } },
  ]);
  if (!before.active && next.active) await syncRoles(tx, actor, [current.id], { keepOwners: true });
  return saved!;
}

type Ended = { userId: string | null; withdrawn: string[]; sessionsEnded: boolean; role: string | null };
const deprovisionSummary = (e: Ended) => ({ role: e.role, votes_withdrawn_from: e.withdrawn, sessions_ended: e.sessionsEnded });

/**
 * Deprovisions: the member row goes (their live streams end with it), their votes on pending
 * approvals are withdrawn, and their sessions end when this was their last workspace
 * (members' endMembership, as removing a member does). Their past decisions stay, by member id.
 * An owner is deprovisioned only when an owner has let SCIM grant the owner role (roles.ts) and
 * another owner remains; otherwise another owner removes or demotes them in the web app first.
 */
async function deactivate(tx: Transaction, current: ScimUserRow): Promise<Ended> {
  const ownerGroupOn = await lockOwnerSwitch(tx, current.workspaceId); // held already by the caller
  const [member] = await tx.select().from(members).where(eq(members.id, current.memberId)).for("update");
  if (!member) return { userId: current.userId, withdrawn: [], sessionsEnded: false, role: null };
  if (member.role === "owner") {
    if (!ownerGroupOn) {
      throw scimError(403, null, `${current.userName} is an owner of this workspace: only an owner removes an owner. Make them admin in AgentDraft (Members) first, then deprovision.`);
    }
    await assertOwnersRemain(tx, current.workspaceId, [member.id], `Deprovisioning ${current.userName}`);
  }
  const { withdrawn, sessionsEnded } = await endMembership(tx, member);
  return { userId: member.userId, withdrawn, sessionsEnded, role: member.role };
}

/**
 * Restores the member with the same id, their sign-in identity when it still exists, and the role
 * their groups give (viewer without role groups). A member who meanwhile has this email and is no
 * other User (invited while this one was inactive) is taken over instead, as at creation.
 */
async function reactivate(tx: Transaction, current: ScimUserRow, next: UserAttributes): Promise<{ memberId: string; role: MemberRow["role"]; account_restored: boolean; took_over_member: boolean }> {
  const [existing] = await tx.select().from(members).where(and(eq(members.workspaceId, current.workspaceId), sql`lower(${members.email}) = ${next.email}`)).for("update");
  if (existing) {
    await assertNotProvisioned(tx, existing, current.id);
    await tx.update(members).set({ name: memberName(next) ?? existing.name }).where(eq(members.id, existing.id));
    return { memberId: existing.id, role: existing.role, account_restored: false, took_over_member: true };
  }
  const [account] = current.userId ? await tx.select({ id: users.id }).from(users).where(eq(users.id, current.userId)) : [];
  const [taken] = account ? await tx.select({ id: members.id }).from(members).where(and(eq(members.workspaceId, current.workspaceId), eq(members.userId, account.id))) : [];
  const ownerGroupOn = await lockOwnerSwitch(tx, current.workspaceId); // held already by the caller
  const role = (await rolesFromGroups(tx, current.workspaceId, [current.id], ownerGroupOn))?.get(current.id) ?? "viewer";
  const restored = Boolean(account && !taken);
  await tx.insert(members).values({ id: current.memberId, workspaceId: current.workspaceId, email: next.email, name: memberName(next), role, userId: restored ? account!.id : null });
  return { memberId: current.memberId, role, account_restored: restored, took_over_member: false };
}

async function assertUserNameFree(tx: Transaction, workspaceId: string, userName: string, self: string | null): Promise<void> {
  const [other] = await tx.select({ id: scimUsers.id }).from(scimUsers).where(and(eq(scimUsers.workspaceId, workspaceId), sql`lower(${scimUsers.userName}) = lower(${userName})`));
  if (other && other.id !== self) throw scimError(409, "uniqueness", `A User with userName ${userName} already exists in this workspace (id ${other.id}).`);
}

async function assertEmailFree(tx: Transaction, workspaceId: string, email: string, self: string): Promise<void> {
  const [other] = await tx.select({ id: members.id }).from(members).where(and(eq(members.workspaceId, workspaceId), sql`lower(${members.email}) = ${email}`));
  if (other && other.id !== self) throw scimError(409, "uniqueness", `${email} is already the email of another member of this workspace.`);
}

async function assertNotProvisioned(tx: Transaction, member: MemberRow, self: string | null = null): Promise<void> {
  const [other] = await tx.select({ id: scimUsers.id, userName: scimUsers.userName }).from(scimUsers).where(and(eq(scimUsers.workspaceId, member.workspaceId), eq(scimUsers.memberId, member.id)));
  if (other && other.id !== self) throw scimError(409, "uniqueness", `${member.email} is already provisioned as the User ${other.userName}.`);
}

/** The groups of each SCIM user, for the `groups` attribute. */
async function groupsOf(q: Queryable, ids: string[]): Promise<Map<string, { id: string; displayName: string }[]>> {
  const out = new Map<string, { id: string; displayName: string }[]>();
  if (ids.length === 0) return out;
  const rows = await q
    .select({ userId: scimGroupMembers.scimUserId, id: scimGroups.id, displayName: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(inArray(scimGroupMembers.scimUserId, ids))
    .orderBy(asc(scimGroups.displayName));
  for (const r of rows) out.set(r.userId, [...(out.get(r.userId) ?? []), { id: r.id, displayName: r.displayName }]);
  return out;
}
