// The public entry of lib/domains/invitations: what another domain may use of it (a domain never reaches into another's files).
export { findInvitationByToken, invitationState } from "./find-invitation";
export { hashInvitationToken } from "./invitation-token";
export { claimInvitation, lockInvitationByToken, lockLiveInvitationFor, type AcceptedBy, type Invitee } from "./accept-invitation";
