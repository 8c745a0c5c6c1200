import { ssoRequiredForEmail } from "../sso";

/**
 * Auth.js's signIn callback for passkeys: signing in with an existing passkey (an assertion,
 * whose account Auth.js read from the database) is refused for an email whose domain requires
 * SSO (docs/sso.md). Registering a passkey stays open: a person signed in by SSO enrols one for
 * approvals, and an invited newcomer registers theirs.
 */
export async function passkeySignInAllowed(user: { email?: string | null }, account: { type?: string; userId?: string } | null | undefined): Promise<boolean> {
  if (account?.type !== "webauthn" || !account.userId || !user.email) return true;
  return !(await ssoRequiredForEmail(user.email));
}
