import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";

/** Why a message was refused whole: stable codes, kept in the `email.rejected` audit entry. */
export type RejectionReason =
  | "too_large"
  | "headers_too_large"
  | "too_many_parts"
  | "too_many_recipients"
  | "too_many_html_elements"
  | "html_too_deep"
  | "parse_timeout"
  | "unparseable";

export type MailLimits = ReturnType<typeof mailLimits>;

export function mailLimits() {
  const e = env();
  return {
    headerBytes: e.MAIL_MAX_HEADER_BYTES,
    mimeParts: e.MAIL_MAX_MIME_PARTS,
    recipients: e.MAIL_MAX_RECIPIENTS,
    htmlElements: e.MAIL_MAX_HTML_ELEMENTS,
    htmlDepth: e.MAIL_MAX_HTML_DEPTH,
    references: e.MAIL_MAX_REFERENCES,
    bodyChars: e.MAIL_MAX_BODY_CHARS,
  };
}

/**
 * A message over a hard limit: 422 over HTTP, a permanent 554 over SMTP (so a sender does not
 * retry it), and an `email.rejected` audit entry naming the reason. Never a 5xx.
 */
export function mailRejected(reason: RejectionReason, detail: string, limit?: number): AppError {
  return new AppError("unprocessable_message", `${detail} Nothing was stored.`, { reason, ...(limit !== undefined ? { limit } : {}) });
}

export function rejectionReason(err: unknown): RejectionReason | null {
  if (!(err instanceof AppError) || err.code !== "unprocessable_message") return null;
  return (err.extra.reason as RejectionReason | undefined) ?? "unparseable";
}

/** `[first, ...last (max - 1)]`: the root and the most recent ancestors (RFC 5322 §3.6.4). */
export function trimReferences(ids: string[], max: number): string[] {
  return ids.length <= max ? ids : [ids[0]!, ...ids.slice(ids.length - (max - 1))];
}
