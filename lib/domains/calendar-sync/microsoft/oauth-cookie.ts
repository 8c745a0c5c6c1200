import { cookies } from "next/headers";
import { appCookieOptions } from "../../auth";

const NAME = "agentdraft-microsoft-oauth";

/** Binds a Microsoft sign-in to this browser for 10 minutes (sealed state + PKCE verifier). */
export async function saveMicrosoftOAuthCookie(value: string): Promise<void> {
  (await cookies()).set(NAME, value, appCookieOptions(600));
}

/** Reads and clears it: a state is good for one callback. */
export async function takeMicrosoftOAuthCookie(): Promise<string | undefined> {
  const jar = await cookies();
  const value = jar.get(NAME)?.value;
  jar.delete(NAME);
  return value;
}
