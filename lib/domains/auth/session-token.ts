import { cookies } from "next/headers";

/** This request's Auth.js session token (the database session's key), if signed in. */
export async function currentSessionToken(): Promise<string | undefined> {
  const jar = await cookies();
  return jar.get("__Secure-authjs.session-token")?.value ?? jar.get("authjs.session-token")?.value;
}
