import { and, eq, gt, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { sessions, users } from "../../../db/schema";
import { ssoRequiredForEmail } from "../sso";
import { currentSessionToken } from "./session-token";

/**
 * Auth.js's signIn callback for passkeys, for an email whose domain requires SSO (docs/sso.md):
 * a passkey ceremony counts only inside a session that began with an SSO sign-in of that same
 * person. There, registering enrols the passkey approvals need, and an assertion confirms (the
 * step-up for approvals and passkey changes: Auth.js keeps the session). Anywhere else, signing
 * in with a passkey is refused, and so is registering one (an invitation, a session that began
 * with a passkey): the identity provider decides who gets in.
 */
export async function passkeySignInAllowed(
  user: { email?: string | null },
  account: { type?: string; userId?: string } | null | undefined,
  readSessionToken: () => Promise<string | undefined> = currentSessionToken,
): Promise<boolean> {
  if (account?.type !== "webauthn" || !user.email) return true;
  if (!(await ssoRequiredForEmail(user.email))) return true;
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
