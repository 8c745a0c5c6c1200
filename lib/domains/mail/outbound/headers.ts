import { AppError, type FieldError } from "../../../platform/errors";

/**
 * Headers the product sets itself, or that would let a caller forge routing, identity or
 * structure. A caller who names one is refused, not silently overridden.
 */
const RESERVED = new Set([
  "from", "sender", "to", "cc", "bcc", "reply-to", "subject", "date", "message-id", "in-reply-to", "references",
  "mime-version", "content-type", "content-transfer-encoding", "content-disposition", "content-id",
  "return-path", "received", "dkim-signature", "arc-seal", "arc-message-signature", "arc-authentication-results",
  "authentication-results", "received-spf", "delivered-to", "x-original-to", "envelope-to", "resent-from",
  "resent-sender", "resent-to", "resent-cc", "resent-bcc", "resent-date", "resent-message-id", "bounces-to",
  "errors-to", "list-unsubscribe", "list-unsubscribe-post",
]);

/** RFC 5322 field name: printable ASCII except colon; we also keep it short. */
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
/** A line break (or NUL) in a header value would start a new header: header injection. */
const BREAKS = /[\r\n\0]/;

const MAX_CUSTOM_HEADERS = 20;

/** Custom headers an agent may add (X-Campaign, Auto-Submitted, ...): checked, never rewritten. */
export function checkCustomHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  if (!headers) return {};
  const errors: FieldError[] = [];
  const entries = Object.entries(headers);
  if (entries.length > MAX_CUSTOM_HEADERS) errors.push({ field: "headers", message: `at most ${MAX_CUSTOM_HEADERS} custom headers` });
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const field = `headers.${name}`;
    const lower = name.toLowerCase();
    if (!FIELD_NAME.test(name)) errors.push({ field, message: "a header name is 1 to 76 printable ASCII characters without a colon or space" });
    else if (RESERVED.has(lower)) errors.push({ field, message: `${name} is set by AgentDraft and cannot be given` });
    else if (seen.has(lower)) errors.push({ field, message: `${name} is given twice (header names are case-insensitive)` });
    if (typeof value !== "string" || BREAKS.test(value)) errors.push({ field, message: "a header value cannot contain line breaks" });
    else if (value.length > 998) errors.push({ field, message: "a header value is at most 998 characters" });
    seen.add(lower);
  }
  if (errors.length) throw new AppError("validation_failed", "Some custom headers cannot be sent.", { errors });
  return headers;
}
