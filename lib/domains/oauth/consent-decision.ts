import { and, eq, gt, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { members, sessions } from "../../../db/schema";
import { publicOrigin } from "../../platform/config/public-url";
import { SESSION_COOKIE_NAMES } from "../../platform/config/cookies";
import { AppError } from "../../platform/errors";
import { readBody } from "../../platform/api/read-body";
import { denyConsent, grantConsent } from "./consent";

const MAX_FORM_BYTES = 16 * 1024;

function sessionToken(cookieHeader: string | null): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name && (SESSION_COOKIE_NAMES as readonly string[]).includes(name)) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/**
 * POST /oauth/authorize/decision: the consent page's form (a plain form post, so the browser
 * follows the answer's redirect to any client, native apps' schemes included). The form must
 * come from this origin (CSRF), the session is read from its cookie, and the member is the
 * session user's in the workspace the form names. Answers where the browser goes next.
 */
export async function decideConsent(headers: Headers, body: string): Promise<string> {
  if (headers.get("origin") !== publicOrigin()) throw new AppError("forbidden", "The consent form must be sent from this site.");
  const form = new URLSearchParams(body);
  const query = new URLSearchParams(form.get("request") ?? "");
  if (form.get("decision") === "deny") return denyConsent(query);
  if (form.get("decision") !== "allow") throw new AppError("validation_failed", "decision must be allow or deny.");
  const token = sessionToken(headers.get("cookie"));
  const q = await queryable();
  const [row] = token
    ? await q
        .select({ member: members })
        .from(sessions)
        .innerJoin(members, eq(members.userId, sessions.userId))
        .where(and(eq(sessions.sessionToken, token), gt(sessions.expires, sql`now()`), eq(members.workspaceId, form.get("workspace_id") ?? "")))
    : [];
  if (!row) throw new AppError("unauthorized", "Sign in (as a member of the workspace you chose) and try again.");
  return grantConsent(row.member, token, query, { agentId: form.get("agent_id") ?? "", scopes: form.getAll("scope") });
}

/** Reads the consent form once, bounded (lib/platform/api/read-body.ts: 413 past the limit, before it is all read). */
export const readConsentForm = (req: Request): Promise<string> => readBody(req, MAX_FORM_BYTES);

/**
 * The consent page again, for the request the form carried, with what went wrong as a code
 * (`consent_error`): the page words it, so a crafted link cannot put text of its choosing there.
 */
export function consentErrorPage(formBody: string, err: unknown): string | null {
  if (!(err instanceof AppError)) return null;
  const query = new URLSearchParams(new URLSearchParams(formBody).get("request") ?? "");
  query.set("consent_error", err.code);
  return `/oauth/authorize?${query.toString()}`;
}

/** How the consent page words each `consent_error`. */
export const CONSENT_ERRORS: Record<string, string> = {
  forbidden: "Not allowed: connecting an application needs an admin or owner of this workspace, with a passkey confirmed in the last 5 minutes. Confirm with your passkey and try again.",
  unauthorized: "Your session has ended. Sign in again and retry.",
  not_found: "That agent is not in this workspace any more. Choose another.",
  validation_failed: "Choose at least one permission, and only ones the application asked for.",
  invalid_request: "This request can no longer be used. Go back to the application and connect again.",
};
