import { cache } from "react";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import type { MemberRow, WorkspaceRow } from "../../../db/schema";
import { membershipsOfUser, type Membership } from "../members";
import { hasRole, type MemberRole } from "../members";
import { WORKSPACE_COOKIE } from "../../platform/config/cookies";
import { auth } from "./auth";

export type SignedInMember = {
  user: { id: string; email: string; name: string | null };
  member: MemberRow;
  workspace: WorkspaceRow;
};

/** The signed-in user's session, or null. One lookup per request. */
export const currentUser = cache(async () => {
  const session = await auth();
  const u = session?.user;
  if (!u?.id || !u.email) return null;
  return { id: u.id, email: u.email, name: u.name ?? null };
});

export { WORKSPACE_COOKIE };

/** Every workspace the signed-in person belongs to, oldest membership first. */
export const currentMemberships = cache(async (): Promise<Membership[]> => {
  const user = await currentUser();
  return user ? membershipsOfUser(user.id) : [];
});

/**
 * The signed-in person as a member of the workspace they chose (else their oldest
 * membership), or null when signed out or a member of no workspace.
 */
export const currentMember = cache(async (): Promise<SignedInMember | null> => {
  const user = await currentUser();
  if (!user) return null;
  const all = await currentMemberships();
  const chosen = (await cookies()).get(WORKSPACE_COOKIE)?.value;
  const membership = all.find((m) => m.workspace.id === chosen) ?? all[0];
  return membership ? { user, ...membership } : null;
});

/**
 * For pages: the signed-in member with at least `atLeast`. Signed-out visitors go to sign-in;
 * a member whose role is too low gets the 403 page.
 */
export async function requireMember(atLeast: MemberRole = "viewer"): Promise<SignedInMember> {
  const m = await currentMember();
  if (!m) {
    if (await currentUser()) redirect("/no-workspace");
    redirect("/sign-in");
  }
  if (!hasRole(m.member.role, atLeast)) forbidden();
  return m;
}
