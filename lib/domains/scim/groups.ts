import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import type { Queryable, Transaction } from "../../../db/client";
import { scimGroupMembers, scimGroups, scimUsers, type ScimGroupRow } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { newId } from "../../platform/ids";
import { scimError } from "./errors";
import { stringValue, type FilterTerm } from "./filter";
import type { ListParams } from "./list-params";
import { parsePatch, scimString, valueEntries, type PatchOp } from "./patch";
import { lockOwnerSwitch, OWNER_GROUP, roleOfGroup, syncRoles } from "./roles";
import { listResponse, serializeGroup } from "./serialize";
import type { ScimActor } from "./tokens";

export const MAX_MEMBERS_PER_REQUEST = 1000;
const notFoundGroup = (id: string) => scimError(404, null, `No Group with id ${id} in this workspace.`);

type GroupChange = { displayName?: string; externalId?: string | null; replace?: string[]; add: string[]; remove: string[]; removeAll?: boolean };

/** POST /Groups. A group named agentdraft-admin, -approver or -viewer (and -owner, switch on) sets its members' roles (roles.ts). */
export async function createGroup(actor: ScimActor, body: unknown, base: string) {
  const resource = groupFromResource(body);
  const id = await transaction(async (tx) => {
    await assertNameFree(tx, actor.workspaceId, resource.displayName, null);
    const groupId = newId("scimGroup");
    await tx.insert(scimGroups).values({ id: groupId, workspaceId: actor.workspaceId, displayName: resource.displayName, externalId: resource.externalId });
    const added = await addMembers(tx, actor.workspaceId, groupId, resource.members);
    const role = roleOfGroup(resource.displayName, await ownerSwitchFor(tx, actor.workspaceId, resource.displayName));
    await appendAudit(tx, [{ actor, action: "scim.group_created", resource: { type: "scim_group", id: groupId }, summary: { display_name: resource.displayName, role, members_added: added } }]);
    if (role) await syncRoles(tx, actor, await allUsers(tx, actor.workspaceId));
    return groupId;
  });
  return getGroup(actor, id, base, false);
}

export async function getGroup(actor: ScimActor, id: string, base: string, excludeMembers: boolean) {
  const q = await queryable();
  const [row] = await q.select().from(scimGroups).where(and(eq(scimGroups.workspaceId, actor.workspaceId), eq(scimGroups.id, id)));
  if (!row) throw notFoundGroup(id);
  return serializeGroup(row, excludeMembers ? null : ((await membersOf(q, [id])).get(id) ?? []), base);
}

/** GET /Groups: filtered (displayName, externalId, id with eq), paged; `excludedAttributes=members` leaves members out (Entra ID asks so). */
export async function listGroups(actor: ScimActor, params: ListParams, base: string) {
  const where = and(eq(scimGroups.workspaceId, actor.workspaceId), ...params.terms.map(groupCondition));
  const q = await queryable();
  const [{ total }] = (await q.select({ total: sql<number>`count(*)::int` }).from(scimGroups).where(where)) as [{ total: number }];
  const rows = params.count === 0 ? [] : await q.select().from(scimGroups).where(where).orderBy(asc(scimGroups.createdAt), asc(scimGroups.id)).limit(params.count).offset(params.startIndex - 1);
  const members = params.excludeMembers ? null : await membersOf(q, rows.map((r) => r.id));
  return listResponse(rows.map((r) => serializeGroup(r, members ? (members.get(r.id) ?? []) : null, base)), total, params.startIndex);
}

function groupCondition(term: FilterTerm): SQL {
  if (term.attr === "displayname") return sql`lower(${scimGroups.displayName}) = lower(${stringValue(term)})`;
  if (term.attr === "externalid") return eq(scimGroups.externalId, stringValue(term));
  if (term.attr === "id") return eq(scimGroups.id, stringValue(term));
  throw scimError(400, "invalidFilter", `Groups cannot be filtered by ${term.attr}: use displayName, externalId or id.`);
}

/** PUT /Groups/{id}: name, externalId and members as sent (members absent: none, as RFC 7644 §3.5.1 reads). */
export async function replaceGroup(actor: ScimActor, id: string, body: unknown, base: string) {
  const r = groupFromResource(body);
  await changeGroup(actor, id, { displayName: r.displayName, externalId: r.externalId, replace: r.members, add: [], remove: [] });
  return getGroup(actor, id, base, false);
}

/**
 * PATCH /Groups/{id}: Okta's (`add` members, `remove` with path `members[value eq "…"]`, a
 * path-less `replace` of displayName) and Entra ID's (`Add`/`Remove` members with a value list,
 * `Replace` displayName) shapes. Answers 204: the group is not echoed (Entra asks excludedAttributes=members anyway).
 */
export async function patchGroup(actor: ScimActor, id: string, body: unknown): Promise<void> {
  const change: GroupChange = { add: [], remove: [] };
  for (const op of parsePatch(body)) applyGroupOp(change, op);
  await changeGroup(actor, id, change);
}

export async function deleteGroup(actor: ScimActor, id: string): Promise<void> {
  await transaction(async (tx) => {
    const group = await lockGroup(tx, actor.workspaceId, id);
    const formerMembers = (await tx.select({ id: scimGroupMembers.scimUserId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, id))).map((r) => r.id);
    await tx.delete(scimGroups).where(eq(scimGroups.id, id));
    await appendAudit(tx, [{ actor, action: "scim.group_deleted", resource: { type: "scim_group", id }, summary: { display_name: group.displayName, members: formerMembers.length } }]);
    const role = roleOfGroup(group.displayName, await ownerSwitchFor(tx, actor.workspaceId, group.displayName));
    if (role) await syncRoles(tx, actor, await allUsers(tx, actor.workspaceId), { ownerGroupGone: role === "owner" });
  });
}

function applyGroupOp(change: GroupChange, op: PatchOp): void {
  if (op.path === null) {
    for (const [path, value] of valueEntries(op)) applyGroupOp(change, { op: op.op, path, value });
    return;
  }
  const p = op.path.toLowerCase();
  const one = /^members\[value eq "([^"]{1,100})"\]$/i.exec(op.path);
  if (p === "displayname") {
    if (op.op === "remove") throw scimError(400, "mutability", "displayName cannot be removed.");
    change.displayName = scimString(op.value, "displayName", 200, false)!;
  } else if (p === "externalid") change.externalId = op.op === "remove" ? null : scimString(op.value, "externalId", 256, true);
  else if (p === "members") {
    if (op.op === "remove" && op.value === undefined) {
      change.removeAll = true;
      change.add = [];
      return;
    }
    const ids = memberIds(op.value);
    if (op.op === "add") change.add.push(...ids);
    else if (op.op === "remove") change.remove.push(...ids);
    else {
      change.replace = ids;
      change.add = [];
      change.remove = [];
    }
  } else if (one) {
    if (op.op !== "remove") throw scimError(400, "invalidPath", `${op.path} can only be removed; add members with path "members".`);
    change.remove.push(one[1]!);
  }
  // Other attributes (an extension's, `id` in Okta's path-less replace) are not kept: accepted and ignored.
}

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_MEMBERS_PER_REQUEST) throw scimError(400, "tooMany", `At most ${MAX_MEMBERS_PER_REQUEST} members in one request.`);
  return list.map((m) => {
    const v = m && typeof m === "object" ? (m as { value?: unknown }).value : undefined;
    if (typeof v !== "string" || v.length === 0 || v.length > 100) throw scimError(400, "invalidValue", 'Each member is {"value": "<User id>"}.');
    return v;
  });
}

function groupFromResource(body: unknown): { displayName: string; externalId: string | null; members: string[] } {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw scimError(400, "invalidSyntax", "Send a Group resource: a JSON object with displayName.");
  const r = body as Record<string, unknown>;
  return {
    displayName: scimString(r.displayName, "displayName", 200, false)!,
    externalId: r.externalId === undefined ? null : scimString(r.externalId, "externalId", 256, true),
    members: r.members === undefined || r.members === null ? [] : memberIds(r.members),
  };
}

async function changeGroup(actor: ScimActor, id: string, change: GroupChange): Promise<void> {
  await transaction(async (tx) => {
    const group = await lockGroup(tx, actor.workspaceId, id);
    const before = new Set((await tx.select({ id: scimGroupMembers.scimUserId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, id))).map((r) => r.id));
    const name = change.displayName ?? group.displayName;
    if (name.toLowerCase() !== group.displayName.toLowerCase()) await assertNameFree(tx, actor.workspaceId, name, id);
    if (change.replace || change.removeAll) await tx.delete(scimGroupMembers).where(eq(scimGroupMembers.groupId, id));
    await addMembers(tx, actor.workspaceId, id, [...(change.replace ?? []), ...change.add]);
    if (change.remove.length) await tx.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, id), inArray(scimGroupMembers.scimUserId, change.remove)));
    const after = new Set((await tx.select({ id: scimGroupMembers.scimUserId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, id))).map((r) => r.id));
    const added = [...after].filter((u) => !before.has(u));
    const removed = [...before].filter((u) => !after.has(u));
    const externalId = change.externalId !== undefined ? change.externalId : group.externalId;
    if (name === group.displayName && externalId === group.externalId && added.length === 0 && removed.length === 0) return;
    await tx.update(scimGroups).set({ displayName: name, externalId, updatedAt: sql`now()` as unknown as Date }).where(eq(scimGroups.id, id));
    await appendAudit(tx, [
      {
        actor,
        action: "scim.group_updated",
        resource: { type: "scim_group", id },
        summary: { display_name: name, ...(name !== group.displayName ? { renamed_from: group.displayName } : {}), members_added: added, members_removed: removed },
      },
    ]);
    const ownerGroupOn = await ownerSwitchFor(tx, actor.workspaceId, group.displayName, name);
    const wasRole = roleOfGroup(group.displayName, ownerGroupOn);
    const isRole = roleOfGroup(name, ownerGroupOn);
    if (wasRole !== isRole) await syncRoles(tx, actor, await allUsers(tx, actor.workspaceId), { ownerGroupGone: wasRole === "owner" });
    else if (isRole) await syncRoles(tx, actor, [...added, ...removed]);
  });
}

/** Adds SCIM users of this workspace to the group (already there: nothing); an id that is no User of the workspace is 400. Returns how many were added. */
async function addMembers(tx: Transaction, workspaceId: string, groupId: string, ids: string[]): Promise<number> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return 0;
  if (unique.length > MAX_MEMBERS_PER_REQUEST) throw scimError(400, "tooMany", `At most ${MAX_MEMBERS_PER_REQUEST} members in one request.`);
  const found = await tx.select({ id: scimUsers.id }).from(scimUsers).where(and(eq(scimUsers.workspaceId, workspaceId), inArray(scimUsers.id, unique)));
  const known = new Set(found.map((r) => r.id));
  const missing = unique.filter((u) => !known.has(u));
  if (missing.length) throw scimError(400, "invalidValue", `No User with id ${missing.slice(0, 5).join(", ")} in this workspace: provision the person before adding them to a group.`);
  const inserted = await tx.insert(scimGroupMembers).values(unique.map((scimUserId) => ({ groupId, scimUserId }))).onConflictDoNothing().returning();
  return inserted.length;
}

async function lockGroup(tx: Transaction, workspaceId: string, id: string): Promise<ScimGroupRow> {
  const [row] = await tx.select().from(scimGroups).where(and(eq(scimGroups.workspaceId, workspaceId), eq(scimGroups.id, id))).for("update");
  if (!row) throw notFoundGroup(id);
  return row;
}

async function assertNameFree(tx: Transaction, workspaceId: string, displayName: string, self: string | null): Promise<void> {
  const [other] = await tx.select({ id: scimGroups.id }).from(scimGroups).where(and(eq(scimGroups.workspaceId, workspaceId), sql`lower(${scimGroups.displayName}) = lower(${displayName})`));
  if (other && other.id !== self) throw scimError(409, "uniqueness", `A Group named ${displayName} already exists in this workspace (id ${other.id}).`);
}

/** The owner-group switch, read and held (roles.ts) only when one of these names is agentdraft-owner: other groups' roles do not depend on it. */
const ownerSwitchFor = async (tx: Transaction, workspaceId: string, ...names: string[]) => (names.some((n) => n.toLowerCase() === OWNER_GROUP) ? lockOwnerSwitch(tx, workspaceId) : false);

const allUsers = async (tx: Transaction, workspaceId: string) => (await tx.select({ id: scimUsers.id }).from(scimUsers).where(eq(scimUsers.workspaceId, workspaceId))).map((r) => r.id);

async function membersOf(q: Queryable, groupIds: string[]): Promise<Map<string, { id: string; userName: string }[]>> {
  const out = new Map<string, { id: string; userName: string }[]>();
  if (groupIds.length === 0) return out;
  const rows = await q
    .select({ groupId: scimGroupMembers.groupId, id: scimUsers.id, userName: scimUsers.userName })
    .from(scimGroupMembers)
    .innerJoin(scimUsers, eq(scimUsers.id, scimGroupMembers.scimUserId))
    .where(inArray(scimGroupMembers.groupId, groupIds))
    .orderBy(asc(scimUsers.userName));
  for (const r of rows) out.set(r.groupId, [...(out.get(r.groupId) ?? []), { id: r.id, userName: r.userName }]);
  return out;
}
