import { registrationIntent } from "./registration";
import { isSetupOpen } from "./setup-status";
import { isSetupToken } from "./setup-token";
import { findInvitationByToken, invitationState } from "../invitations";

const INTENT_COOKIE = "agentdraft-registration";
const OPTIONS_PATH = /\/api\/auth\/webauthn-options\//;

/**
 * Auth.js's passkey-options endpoint looks the `email` parameter up: authentication options list
 * that account's credentials, and registration is refused for an existing account, so the
 * answer told anyone whether an account exists. Here an email reaches Auth.js only for a
 * registration the visitor holds an intent for (the setup token, or a pending invitation to that
 * address); every other request is answered as if no email had been given (sign-in uses
 * discoverable passkeys; a signed-in person adding one needs no email).
 */
export async function guardWebAuthnOptions(req: Request): Promise<Request> {
  const url = new URL(req.url);
  if (!OPTIONS_PATH.test(url.pathname) || !url.searchParams.has("email")) return req;
  const email = url.searchParams.get("email")!.trim().toLowerCase();
  if (url.searchParams.get("action") === "register" && (await holdsIntentFor(req, email))) return req;
  url.searchParams.delete("email");
  return new Request(url, { method: req.method, headers: req.headers });
}

async function holdsIntentFor(req: Request, email: string): Promise<boolean> {
  const raw = cookieValue(req.headers.get("cookie"), INTENT_COOKIE);
  if (!raw) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    return false;
  }
  const intent = registrationIntent.safeParse(parsed);
  if (!intent.success) return false;
  if (intent.data.kind === "setup") return intent.data.email === email && isSetupToken(intent.data.setupToken) && (await isSetupOpen());
  const found = await findInvitationByToken(intent.data.token);
  return Boolean(found && invitationState(found.invitation) === "pending" && found.invitation.email === email);
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}
