import { publicOrigin } from "../../platform/config/public-url";
import { secureCookies, sessionCookieName, WORKSPACE_COOKIE } from "../../platform/config/cookies";
import { completeSsoSignIn, SSO_SIGN_IN_TTL_MS, SSO_STATE_COOKIE, SsoRefusal, startSsoSignIn } from "./sign-in";

/** Where a person without a passkey goes after signing in with SSO: approvals need one. */
export const ENROL_PASSKEY_PATH = "/settings?passkey=enrol#passkeys";

function cookie(name: string, value: string, maxAgeSeconds: number, path = "/"): string {
  return [`${name}=${value}`, `Path=${path}`, `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax", ...(secureCookies() ? ["Secure"] : [])].join("; ");
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location: new URL(location, publicOrigin()).href, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

/** Back to the sign-in page with the refusal's reason (a code the page turns into a message). */
function refused(err: unknown, clearState: boolean): Response {
  if (!(err instanceof SsoRefusal)) throw err;
  return redirect(`/sign-in?sso_error=${err.reason}`, clearState ? [cookie(SSO_STATE_COOKIE, "", 0, "/sso")] : []);
}

const readCookie = (header: string | null, name: string) =>
  header
    ?.split(";")
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/** GET /sso/start?email=… : to the identity provider, with the state in an httpOnly cookie for the callback. `next` is already safe. */
export async function ssoStartResponse(req: Request, next: string): Promise<Response> {
  const email = new URL(req.url).searchParams.get("email") ?? "";
  try {
    const { authorizationUrl, state } = await startSsoSignIn(email.slice(0, 300), next);
    return redirect(authorizationUrl, [cookie(SSO_STATE_COOKIE, state, SSO_SIGN_IN_TTL_MS / 1000, "/sso")]);
  } catch (err) {
    return refused(err, false);
  }
}

const YEAR_SECONDS = 365 * 24 * 60 * 60;

/**
 * GET /sso/callback : the identity provider's answer; a session cookie as Auth.js sets it, the
 * connection's workspace as the active one (the web app's workspace switcher cookie), then on (or to enrol a passkey).
 */
export async function ssoCallbackResponse(req: Request): Promise<Response> {
  const params = new URL(req.url).searchParams;
  try {
    const done = await completeSsoSignIn(params, readCookie(req.headers.get("cookie"), SSO_STATE_COOKIE));
    const maxAge = Math.floor((done.expires.getTime() - Date.now()) / 1000);
    return redirect(done.needsPasskey ? ENROL_PASSKEY_PATH : done.next, [
      cookie(sessionCookieName(), done.sessionToken, maxAge),
      cookie(WORKSPACE_COOKIE, done.workspaceId, YEAR_SECONDS),
      cookie(SSO_STATE_COOKIE, "", 0, "/sso"),
    ]);
  } catch (err) {
    return refused(err, true);
  }
}
