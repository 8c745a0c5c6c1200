import { and, eq, gt, sql } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { members, sessions } from "../../db/schema";
import { publicOrigin } from "../config/public-url";
import { AppError } from "../errors";
import { denyConsent, grantConsent } from "./consent";

const SESSION_COOKIES = ["__Secure-authjs.session-token", "authjs.session-token"];
const MAX_FORM_BYTES = 16 * 1024;

function sessionToken(cookieHeader: string | null): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name && SESSION_COOKIES.includes(name)) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/**
 * POST /oauth/authorize/decision: the consent page's form (a plain form post, so the browser
 * follows the answer's redirect to any client, native apps' schemes included). The form must
 * come from this origin (CSRF), the session is read from its cookie, and the member is the
 * session user's in the workspace the form names. Answers where the browser goes next.
 */
export async function decideConsent(req: Request): Promise<string> {
  if (req.headers.get("origin") !== publicOrigin()) throw new AppError("forbidden", "The consent form must be sent from this site.");
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > MAX_FORM_BYTES) throw new AppError("payload_too_large", `The consent form is larger than ${MAX_FORM_BYTES} bytes.`);
  const form = new URLSearchParams(await req.text());
  const query = new URLSearchParams(form.get("request") ?? "");
  if (form.get("decision") === "deny") return denyConsent(query);
  if (form.get("decision") !== "allow") throw new AppError("validation_failed", "decision must be allow or deny.");
  const token = sessionToken(req.headers.get("cookie"));
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
