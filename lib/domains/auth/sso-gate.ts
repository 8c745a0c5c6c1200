import { and, eq, gt, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { sessions, users } from "../../../db/schema";
import { ssoRequiredForEmail } from "../sso";
import { currentSessionToken } from "./session-token";

/**
 * Auth.js's signIn callback for passkeys, for an email whose domain requires SSO (docs/sso.md):
 * signing in with an existing passkey (an assertion, whose account Auth.js read from the database)
 * is refused, and so is registering a new passkey unless this browser's session began with an SSO
 * sign-in of that same person (they enrol a passkey for approvals). An invitation or a session
 * that began with a passkey registers none: the identity provider decides who gets in.
 */
export async function passkeySignInAllowed(
  user: { email?: string | null },
  account: { type?: string; userId?: string } | null | undefined,
  readSessionToken: () => Promise<string | undefined> = currentSessionToken,
): Promise<boolean> {
  if (account?.type !== "webauthn" || !user.email) return true;
  if (!(await ssoRequiredForEmail(user.email))) return true;
  if (account.userId) return false; // an assertion: signing in with a passkey
  return signedInBySsoAs(await readSessionToken(), user.email);
}

/** Whether `token` is a live session that began with an SSO sign-in, of the person with `email`. */
async function signedInBySsoAs(token: string | undefined, email: string): Promise<boolean> {
  if (!token) return false;
  const q = await queryable();
  const [row] = await q
    .select({ via: sessions.signedInVia })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.sessionToken, token), gt(sessions.expires, new Date()), sql`lower(${users.email}) = ${email.trim().toLowerCase()}`));
  return row?.via === "sso";
}
