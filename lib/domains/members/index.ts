// The public entry of lib/domains/members: what another domain may use of it (a domain never reaches into another's files).
export { memberActor, membershipsOfUser } from "./memberships";
export type { Membership } from "./memberships";
export { assertRole, hasRole } from "./roles";
export type { MemberRole } from "./roles";
export { endMembership } from "./remove-member";
export { assertAnotherOwner } from "./change-role";
export { withdrawPendingVotes } from "./withdraw-votes";
