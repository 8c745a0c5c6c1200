import { env } from "../../../platform/config/env";

/**
 * SPF, DKIM and DMARC verdicts for a received message, and who vouches for them:
 * `checked_by` is our own verification (SMTP: we are the receiving MTA), the authserv-id of a
 * trusted upstream MTA's Authentication-Results header, or null (nobody: no verdict at all).
 */
export type SenderAuth = { spf: string | null; dkim: string | null; dmarc: string | null; checked_by: string | null; failed: boolean };

export const NOT_CHECKED: SenderAuth = { spf: null, dkim: null, dmarc: null, checked_by: null, failed: false };

type Headers = Map<string, unknown>;
const str = (v: unknown): string => (typeof v === "string" ? v : v && typeof v === "object" && "value" in v ? String((v as { value: unknown }).value) : v ? String(v) : "");
export const FAILING_VERDICTS: ReadonlySet<string> = new Set(["fail", "softfail", "permerror"]);

function verdicts(results: string, checkedBy: string): SenderAuth {
  const verdict = (method: string) => new RegExp(`(?:^|;)\\s*${method}\\s*=\\s*([a-z]+)`, "i").exec(results)?.[1]?.toLowerCase() ?? null;
  const out = { spf: verdict("spf"), dkim: verdict("dkim"), dmarc: verdict("dmarc"), checked_by: checkedBy };
  return { ...out, failed: [out.spf, out.dkim, out.dmarc].some((v) => v !== null && FAILING_VERDICTS.has(v)) };
}

export function trustedAuthservIds(): string[] {
  return env()
    .MAIL_TRUSTED_AUTHSERV_ID.split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Verdicts from an Authentication-Results header, trusted only from the MTA that delivered to
 * us: the topmost header, and only when its authserv-id is in MAIL_TRUSTED_AUTHSERV_ID. Every
 * other one may have been written by the sender (RFC 8601 §5) and is ignored.
 */
export function trustedAuthenticationResults(headers: Headers, trusted: string[] = trustedAuthservIds()): SenderAuth {
  const topmost = [headers.get("authentication-results") ?? []].flat().map(str)[0];
  if (!topmost || !trusted.length) return NOT_CHECKED;
  const authservId = /^\s*([^\s;]+)/.exec(topmost)?.[1]?.toLowerCase();
  if (!authservId || !trusted.includes(authservId)) return NOT_CHECKED;
  return verdicts(topmost.slice(topmost.indexOf(";") + 1), authservId);
}

/** The identity our SMTP listener verifies as (the authserv-id of the results it computes, verify-sender.ts). */
export const LOCAL_AUTHSERV_ID = "agentdraft";
