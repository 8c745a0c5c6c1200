import { secureCookies } from "../../platform/config/cookies";

/** The web app's own cookies: httpOnly, same-site, Secure in production unless served over plain http. */
export function appCookieOptions(maxAgeSeconds: number) {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: secureCookies(),
    path: "/",
    maxAge: maxAgeSeconds,
  };
}

export { YEAR_SECONDS } from "../../platform/config/cookies";
