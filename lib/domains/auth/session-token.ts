import { cookies } from "next/headers";
import { SESSION_COOKIE_NAMES } from "../../platform/config/cookies";

/** This request's Auth.js session token (the database session's key), if signed in. */
export async function currentSessionToken(): Promise<string | undefined> {
  const jar = await cookies();
  for (const name of SESSION_COOKIE_NAMES) {
    const value = jar.get(name)?.value;
    if (value) return value;
  }
  return undefined;
}
