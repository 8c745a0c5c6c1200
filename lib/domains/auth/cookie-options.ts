import { env } from "../../platform/config/env";

/** The web app's own cookies: httpOnly, same-site, Secure in production unless served over plain http. */
export function appCookieOptions(maxAgeSeconds: number) {
  const e = env();
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: e.NODE_ENV === "production" && !e.AUTH_URL?.startsWith("http:"),
    path: "/",
    maxAge: maxAgeSeconds,
  };
}

export const YEAR_SECONDS = 365 * 24 * 60 * 60;
