import { publicOrigin } from "../../platform/config/public-url";
import { secureCookies, sessionCookieName, WORKSPACE_COOKIE, YEAR_SECONDS } from "../../platform/config/cookies";
import { readBody } from "../../platform/api/read-body";
import { isId } from "../../platform/ids";
import type { SsoSignedIn } from "./admit";
import { type SsoRefusalReason } from "./refusal";
import { samlSpMetadataXml } from "./saml-metadata";
import { completeSamlSignIn, SAML_REQUEST_COOKIE, SAML_REQUEST_TTL_MS } from "./saml-sign-in";
import { completeSsoSignIn, SSO_SIGN_IN_TTL_MS, SSO_STATE_COOKIE, SsoRefusal, startSsoSignIn } from "./sign-in";

/** Where a person without a passkey goes after signing in with SSO: approvals need one. */
export const ENROL_PASSKEY_PATH = "/settings?passkey=enrol#passkeys";

function cookie(name: string, value: string, maxAgeSeconds: number, path = "/"): string {
  return [`${name}=${value}`, `Path=${path}`, `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax", ...(secureCookies() ? ["Secure"] : [])].join("; ");
}

/** The SAML request cookie must reach the ACS with the IdP's cross-site form post: SameSite=None, hence Secure (browsers keep Secure cookies of http://localhost too). */
const samlRequestCookie = (value: string, maxAgeSeconds: number) => [`${SAML_REQUEST_COOKIE}=${value}`, "Path=/sso/saml", `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=None", "Secure"].join("; ");

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
    const { authorizationUrl, state, samlRequestId } = await startSsoSignIn(email.slice(0, 300), next);
    const cookies = [...(state ? [cookie(SSO_STATE_COOKIE, state, SSO_SIGN_IN_TTL_MS / 1000, "/sso")] : []), ...(samlRequestId ? [samlRequestCookie(samlRequestId, SAML_REQUEST_TTL_MS / 1000)] : [])];
    return redirect(authorizationUrl, cookies);
  } catch (err) {
    return refused(err, false);
  }
}

/**
 * GET /sso/callback : the identity provider's answer; a session cookie as Auth.js sets it, the
 * connection's workspace as the active one (the web app's workspace switcher cookie), then on (or to enrol a passkey).
 */
export async function ssoCallbackResponse(req: Request): Promise<Response> {
  const params = new URL(req.url).searchParams;
  try {
    const done = await completeSsoSignIn(params, readCookie(req.headers.get("cookie"), SSO_STATE_COOKIE));
    return signedIn(done, [cookie(SSO_STATE_COOKIE, "", 0, "/sso")]);
  } catch (err) {
    return refused(err, true);
  }
}

/** A session cookie as Auth.js sets it, then on (or to enrol a passkey). */
function signedIn(done: SsoSignedIn, cookies: string[] = []): Response {
  const maxAge = Math.floor((done.expires.getTime() - Date.now()) / 1000);
  // The connection's workspace becomes the active one (a person may belong to several).
  return redirect(done.needsPasskey ? ENROL_PASSKEY_PATH : done.next, [
    cookie(sessionCookieName(), done.sessionToken, maxAge),
    cookie(WORKSPACE_COOKIE, done.workspaceId, YEAR_SECONDS),
    ...cookies,
  ]);
}

/** A SAMLResponse is a few KiB; IdPs that add many attributes stay well under this. */
const ACS_BODY_LIMIT = 512 * 1024;

const ACS_STATUS: Record<SsoRefusalReason, number> = {
  invalid_email: 400,
  no_connection: 404,
  rate_limited: 429,
  unavailable: 502,
  expired: 400,
  failed: 400,
  replayed: 400,
  unsolicited: 403,
  email_not_covered: 403,
  not_member: 403,
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The IdP posted to the ACS, so there is no sign-in page to go back to with a code: a small 4xx page says why, and links there. */
function acsRefused(err: unknown): Response {
  if (!(err instanceof SsoRefusal)) throw err;
  const back = `/sign-in?sso_error=${err.reason}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem"><h1>Sign-in refused</h1><p data-reason="${err.reason}">${escapeHtml(err.message)}</p><p><a href="${back}">Back to sign-in</a></p></body></html>`;
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-sso-error": err.reason });
  headers.append("set-cookie", samlRequestCookie("", 0));
  return new Response(html, { status: ACS_STATUS[err.reason], headers });
}

/** POST /sso/saml/{workspace}/acs : the IdP's SAMLResponse (HTTP-POST binding); a session, or a 4xx page saying why not. */
export async function samlAcsResponse(req: Request, workspaceId: string): Promise<Response> {
  try {
    if (!isId("workspace", workspaceId)) throw new SsoRefusal("no_connection", "This workspace has no SAML connection.");
    const form = new URLSearchParams(await readBody(req, ACS_BODY_LIMIT));
    return signedIn(await completeSamlSignIn(workspaceId, form, readCookie(req.headers.get("cookie"), SAML_REQUEST_COOKIE)), [samlRequestCookie("", 0)]);
  } catch (err) {
    return acsRefused(err);
  }
}

/** GET /sso/saml/{workspace}/metadata : our service provider's metadata for the workspace's IdP. */
export function samlMetadataResponse(workspaceId: string): Response {
  if (!isId("workspace", workspaceId)) return new Response("Not found", { status: 404 });
  return new Response(samlSpMetadataXml(workspaceId), { headers: { "content-type": "application/samlmetadata+xml; charset=utf-8", "cache-control": "public, max-age=300" } });
}
