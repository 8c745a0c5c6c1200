import { cookies } from "next/headers";
import { appCookieOptions } from "../../auth";

const NAME = "agentdraft-google-oauth";

/** Binds a Google sign-in to this browser for 10 minutes (sealed state + PKCE verifier). */
export async function saveGoogleOAuthCookie(value: string): Promise<void> {
  (await cookies()).set(NAME, value, appCookieOptions(600));
}

/** Reads and clears it: a state is good for one callback. */
export async function takeGoogleOAuthCookie(): Promise<string | undefined> {
  const jar = await cookies();
  const value = jar.get(NAME)?.value;
  jar.delete(NAME);
  return value;
}
