import { and, asc, eq } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { members, workspaces, type MemberRow, type WorkspaceRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { notFound } from "../../platform/errors";

export type Membership = { member: MemberRow; workspace: WorkspaceRow };

/** The workspaces a signed-in user belongs to, oldest membership first. */
export async function membershipsOfUser(userId: string): Promise<Membership[]> {
  const q = await queryable();
  const rows = await q
    .select({ member: members, workspace: workspaces })
    .from(members)
    .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
    .where(eq(members.userId, userId))
    .orderBy(asc(members.createdAt), asc(members.id));
  return rows;
}

/** A member of this workspace; other workspaces' members are not found. */
export async function findMember(workspaceId: string, memberId: string): Promise<MemberRow> {
  const q = await queryable();
  const [row] = await q.select().from(members).where(and(eq(members.workspaceId, workspaceId), eq(members.id, memberId)));
  if (!row) throw notFound("member", memberId);
  return row;
}

export async function listMembers(workspaceId: string): Promise<MemberRow[]> {
  const q = await queryable();
  return q.select().from(members).where(eq(members.workspaceId, workspaceId)).orderBy(asc(members.createdAt), asc(members.id));
}

/** The audit actor for a member acting in the web app. */
export const memberActor = (m: Pick<MemberRow, "id" | "workspaceId">): Actor & { type: "member" } => ({
  type: "member",
  workspaceId: m.workspaceId,
  memberId: m.id,
});
