import { MEMBER_ROLES, type MemberRole } from "../../../db/schema";
import { AppError } from "../../platform/errors";

export { MEMBER_ROLES, type MemberRole };

/**
 * Roles are ordered: each includes what the ones below it may do.
 * viewer reads; approver also decides approvals; admin also manages agents, keys and
 * members; owner also manages owners and the workspace itself.
 */
const RANK: Record<MemberRole, number> = { viewer: 0, approver: 1, admin: 2, owner: 3 };

export const hasRole = (role: MemberRole, atLeast: MemberRole): boolean => RANK[role] >= RANK[atLeast];

export const ROLE_DESCRIPTIONS: Record<MemberRole, string> = {
  owner: "Everything, including owners and workspace settings",
  admin: "Agents, API keys and members",
  approver: "Decides approvals; reads everything",
  viewer: "Reads everything, changes nothing",
};

/** Throws `forbidden` unless `role` is at least `atLeast`. */
export function assertRole(role: MemberRole, atLeast: MemberRole, doing = "do this"): void {
  if (!hasRole(role, atLeast)) {
    throw new AppError("forbidden", `Your role (${role}) cannot ${doing}: it needs ${atLeast} or above.`, { required_role: atLeast });
  }
}
