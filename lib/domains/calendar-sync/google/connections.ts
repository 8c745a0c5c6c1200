import type { GoogleConnectionRow, MemberRow } from "../../../../db/schema";
import type { Actor } from "../../../platform/actor";
import { completeConnect, disconnect, listConnections as listAll, startConnect } from "../connect";
import { googleProvider } from "./provider";

// Connecting Google runs on the shared engine (lib/domains/calendar-sync/connect.ts).
export { getConnection } from "../connect";

/** Step 1 of connecting: the Google consent URL (offline access, PKCE) and the sealed cookie binding the flow to this member. */
export const startGoogleConnect = (member: MemberRow, redirectUri: string) => startConnect(googleProvider, member, redirectUri);

/** Step 2, the OAuth callback: state and member checked, code exchanged with the PKCE verifier, refresh token sealed. */
export const completeGoogleConnect = (member: MemberRow, input: { cookie: string | undefined; state: string | null; code: string | null; error?: string | null }) =>
  completeConnect(googleProvider, member, input);

export const listConnections = (workspaceId: string): Promise<GoogleConnectionRow[]> => listAll(workspaceId, "google");

/** Disconnects a Google account: channels stopped, token revoked at Google, calendars unlinked, token forgotten. */
export async function disconnectGoogle(actor: Actor, connectionId: string): Promise<{ connection: GoogleConnectionRow; revokedAtGoogle: boolean; revokeError: string | null }> {
  const r = await disconnect(googleProvider, actor, connectionId);
  return { connection: r.connection, revokedAtGoogle: r.revokedAtProvider, revokeError: r.revokeError };
}
