type Headers = Map<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : v && typeof v === "object" && "value" in v ? String((v as { value: unknown }).value) : v ? String(v) : "");

/**
 * Why a message looks machine-sent (auto-replies, bulk, lists, bounces, receipts), so agents
 * do not answer it and start a reply loop. Empty when it looks written by a person.
 */
export function automatedReasons(headers: Headers, from: string, contentType: string): string[] {
  const reasons: string[] = [];
  const autoSubmitted = str(headers.get("auto-submitted")).toLowerCase();
  if (autoSubmitted && !autoSubmitted.startsWith("no")) reasons.push(`auto-submitted: ${autoSubmitted}`);
  const precedence = str(headers.get("precedence")).toLowerCase();
  if (/^(bulk|list|junk|auto_reply)/.test(precedence)) reasons.push(`precedence: ${precedence}`);
  // mailparser folds List-* headers into one `list` object.
  const list = (headers.get("list") ?? {}) as Record<string, unknown>;
  if (headers.has("list-id") || list.id) reasons.push("list-id");
  if (headers.has("list-unsubscribe") || list.unsubscribe) reasons.push("list-unsubscribe");
  if (headers.has("x-autoreply") || headers.has("x-autorespond") || headers.has("x-auto-response-suppress")) reasons.push("auto-responder header");
  if (/multipart\/report/i.test(contentType)) reasons.push(`report: ${/report-type=["']?([\w-]+)/i.exec(contentType)?.[1] ?? "unknown"}`);
  if (/^(mailer-daemon|postmaster|no-?reply|bounces?)([+@]|$)/i.test(from)) reasons.push(`sender: ${from}`);
  if (/^<\s*>$/.test(str(headers.get("return-path")).trim())) reasons.push("null return-path");
  return reasons;
}
