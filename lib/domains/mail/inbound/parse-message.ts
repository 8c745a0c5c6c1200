import { createHash } from "node:crypto";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import TurndownService from "turndown";
import type { Address, MessageSecurity } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { storableText } from "../../../platform/api/input-guards";
import { inspectHtml, sanitizeEmailHtml } from "./sanitize-html";
import { mailLimits, mailRejected, trimReferences, type MailLimits } from "./mail-limits";
import { stripInvisible } from "./invisible-characters";
import { findInjectionSignals } from "./injection-signals";
import { automatedReasons } from "./automated";
import { extractReply, type ExtractionFallback } from "./extract-reply";
import { trustedAuthenticationResults, type SenderAuth } from "./sender-auth";

/** An attachment's metadata; its bytes stay in the message's source (read back by `partIndex`). */
export type ParsedAttachment = { partIndex: number; filename: string | null; contentType: string; contentId: string | null; disposition: string | null; size: number; sha256: string };

export type ParsedMessage = {
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  from: Address;
  to: Address[];
  cc: Address[];
  /** Where the message says it was delivered (To, Cc, Delivered-To, X-Original-To), for routing. */
  recipients: string[];
  subject: string;
  date: Date | null;
  text: string;
  /** The same as extractedText (its older name in the API). */
  textReply: string;
  /** The new text without quoted history and signature; the full text when extraction failed (`extractionFallback`). */
  extractedText: string;
  /** The same cut in htmlSanitized; null without HTML. */
  extractedHtml: string | null;
  extractionFallback: ExtractionFallback | null;
  markdown: string;
  htmlSanitized: string | null;
  /** text, markdown or htmlSanitized was cut at the body limit (MAIL_MAX_BODY_CHARS). */
  bodyTruncated: boolean;
  headersOfNote: Record<string, string | null>;
  security: MessageSecurity;
  automated: boolean;
  automatedReasons: string[];
  attachments: ParsedAttachment[];
  sizeBytes: number;
  sha256: string;
};

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });

function addresses(field: AddressObject | AddressObject[] | undefined): Address[] {
  const out: Address[] = [];
  const walk = (list: { name?: string; address?: string; group?: unknown[] }[]) => {
    for (const a of list) {
      if (a.group) walk(a.group as typeof list);
      else if (a.address) out.push({ name: a.name?.trim() || null, email: a.address.trim().toLowerCase() });
    }
  };
  for (const obj of [field ?? []].flat()) walk(obj.value);
  return out;
}

const normaliseId = (id: string) => {
  const trimmed = id.trim();
  return trimmed.startsWith("<") ? trimmed : `<${trimmed}>`;
};
const ids = (value: string | string[] | undefined): string[] =>
  [value ?? []]
    .flat()
    .flatMap((v) => v.match(/<[^<>\s]+>/g) ?? (v.trim() ? [v.trim()] : []))
    .map(normaliseId);

function headerText(mail: ParsedMail, name: string): string | null {
  const v = mail.headers.get(name);
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object" && "value" in v) return String((v as { value: unknown }).value);
  if (typeof v === "object" && "text" in v) return String((v as { text: unknown }).text);
  return String(v);
}

/**
 * Where a message says it is going, from its header block alone (at most `max` addresses): for
 * routing the audit entry of mail refused before it could be parsed whole.
 */
export async function recipientsInHeaders(raw: Buffer, max = 1000): Promise<string[]> {
  const end = raw.indexOf("\r\n\r\n") >= 0 ? raw.indexOf("\r\n\r\n") : raw.indexOf("\n\n");
  const head = raw.subarray(0, end > 0 ? Math.min(end, 256 * 1024) : 64 * 1024);
  const mail = await simpleParser(Buffer.concat([head, Buffer.from("\r\n\r\n")]), { skipHtmlToText: true } as Parameters<typeof simpleParser>[1]).catch(() => null);
  if (!mail) return [];
  const delivered = ["delivered-to", "x-original-to", "envelope-to"].map((h) => headerText(mail, h)).filter((v): v is string => !!v);
  return [...new Set([...addresses(mail.to), ...addresses(mail.cc)].map((a) => a.email).concat(delivered.map((d) => d.trim().toLowerCase())))].slice(0, max);
}

/** A header block must come first: a name, a colon, a value. Anything else is not mail. */
function looksLikeMail(raw: Buffer): boolean {
  const head = raw.subarray(0, 4096).toString("latin1");
  return /^[\x21-\x39\x3b-\x7e]+:[^\r\n]*/.test(head.replace(/^\s+/, "")) || /^From [^\r\n]*\r?\n[\x21-\x39\x3b-\x7e]+:/.test(head);
}

/**
 * Raw RFC 5322 bytes → the SPEC §3 fields, with zero-trust sanitising. Never throws for
 * malformed MIME it can read; refuses bytes that are not mail with a clear 422.
 */
export type ParseOptions = {
  /** Verdicts already verified (SMTP); else a trusted MTA's Authentication-Results are read. */
  senderAuth?: SenderAuth;
  /** Limits and trusted authserv-ids, passed in by a caller on another thread; default: from the environment. */
  limits?: MailLimits;
  trustedAuthservIds?: string[];
};

/** mailparser's options: the same for parsing and (without the limits: it was accepted) for reading an attachment back out of the source. */
export function mailparserOptions(limits?: Pick<MailLimits, "headerBytes" | "mimeParts">) {
  return {
    skipImageLinks: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    keepCidLinks: true,
    // We derive text from the sanitised HTML ourselves (turndown); mailparser's own html-to-text is slow on hostile HTML.
    skipHtmlToText: true,
    ...(limits ? { maxHeadSize: limits.headerBytes, maxChildNodes: limits.mimeParts } : {}),
  } as Parameters<typeof simpleParser>[1];
}

/** At most `max` characters, not ending inside a surrogate pair (or, for HTML, inside a tag). */
export function cutText(text: string, max: number, html = false): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  if (html) {
    const open = cut.lastIndexOf("<");
    if (open > cut.lastIndexOf(">")) cut = cut.slice(0, open);
  }
  return cut;
}

export async function parseMessage(raw: Buffer, opts: ParseOptions = {}): Promise<ParsedMessage> {
  if (raw.length === 0 || !looksLikeMail(raw)) {
    throw new AppError("unprocessable_message", "The body is not an RFC 5322 message: it must start with header lines such as `From: ...`.");
  }
  const limits = opts.limits ?? mailLimits();
  const mail = await simpleParser(raw, mailparserOptions(limits)).catch((err: Error & { code?: string }) => {
    if (err.code === "EMAXLEN" && /header/i.test(err.message)) throw mailRejected("headers_too_large", `A header section is over ${limits.headerBytes} bytes (MAIL_MAX_HEADER_BYTES).`, limits.headerBytes);
    if (err.code === "EMAXLEN" && /child nodes/i.test(err.message)) throw mailRejected("too_many_parts", `The message has more than ${limits.mimeParts} MIME parts (MAIL_MAX_MIME_PARTS).`, limits.mimeParts);
    throw mailRejected("unparseable", `The message cannot be parsed (${err.message}).`);
  });
  const sha256 = createHash("sha256").update(raw).digest("hex");

  const from = addresses(mail.from)[0] ?? { name: null, email: "" };
  const to = addresses(mail.to);
  const cc = addresses(mail.cc);
  if (to.length + cc.length > limits.recipients) {
    throw mailRejected("too_many_recipients", `The message names ${to.length + cc.length} recipients in To and Cc, over ${limits.recipients} (MAIL_MAX_RECIPIENTS).`, limits.recipients);
  }

  const inspected = typeof mail.html === "string" ? inspectHtml(mail.html, { maxElements: limits.htmlElements, maxDepth: limits.htmlDepth }) : null;
  const html = typeof mail.html === "string" ? sanitizeEmailHtml(mail.html, inspected!) : null;
  const markdownFromHtml = html?.html ? turndown.turndown(html.html) : null;
  const plain = stripInvisible((mail.text ?? markdownFromHtml ?? "").trimEnd());
  const subject = stripInvisible(mail.subject ?? "");
  // Bounded (the first 64 KB of text, HTML up to 512 KB) and never fatal: on failure the full text stands in.
  const extracted = extractReply(plain.text, html?.html ?? null, subject.text);
  const delivered = ["delivered-to", "x-original-to", "envelope-to"].map((h) => headerText(mail, h)).filter((v): v is string => !!v);
  const recipients = [...new Set([...to, ...cc].map((a) => a.email).concat(delivered.map((d) => d.trim().toLowerCase())))];

  // Verdicts we verified ourselves (SMTP), else those of a trusted upstream MTA, else none.
  const auth = opts.senderAuth ?? trustedAuthenticationResults(mail.headers, opts.trustedAuthservIds);
  const contentType = mail.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  const reportType = contentType?.params?.["report-type"];
  const reasons = automatedReasons(mail.headers, from.email, `${contentType?.value ?? ""}${reportType ? `; report-type=${reportType}` : ""}`);
  const injection = findInjectionSignals([
    { where: "subject", text: subject.text },
    { where: "text", text: plain.text },
    { where: "hidden_html", text: html?.findings.hidden_text ?? "" },
  ]);

  // Bodies are bounded: stored text of megabytes stalls the database and helps no reader; the raw source keeps all of it.
  const markdown = markdownFromHtml ?? plain.text;
  const bodies = { text: cutText(plain.text, limits.bodyChars), markdown: cutText(markdown, limits.bodyChars), html: html?.html ? cutText(html.html, limits.bodyChars, true) : (html?.html ?? null) };
  const bodyTruncated = bodies.text.length < plain.text.length || bodies.markdown.length < markdown.length || (bodies.html?.length ?? 0) < (html?.html?.length ?? 0);

  return storableStrings({
    messageId: mail.messageId ? normaliseId(mail.messageId) : `<${sha256}@agentdraft.invalid>`,
    inReplyTo: mail.inReplyTo ? (ids(mail.inReplyTo)[0] ?? null) : null,
    references: trimReferences(ids(mail.references), limits.references),
    from,
    to,
    cc,
    recipients,
    subject: subject.text,
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : null,
    text: bodies.text,
    textReply: cutText(extracted.text, limits.bodyChars),
    extractedText: cutText(extracted.text, limits.bodyChars),
    extractedHtml: extracted.html === null ? null : cutText(extracted.html, limits.bodyChars, true),
    extractionFallback: extracted.fallback,
    markdown: bodies.markdown,
    htmlSanitized: bodies.html,
    bodyTruncated,
    headersOfNote: {
      spf: auth.spf,
      dkim: auth.dkim,
      dmarc: auth.dmarc,
      auth_checked_by: auth.checked_by,
      auto_submitted: headerText(mail, "auto-submitted"),
      list_id: ((mail.headers.get("list") as { id?: { id?: string; name?: string } } | undefined)?.id?.id ?? null),
      reply_to: addresses(mail.replyTo)[0]?.email ?? null,
    },
    security: {
      zero_width_removed: plain.removed + subject.removed + (html?.findings.zero_width_removed ?? 0),
      scripts_removed: html?.findings.scripts_removed ?? false,
      styles_removed: html?.findings.styles_removed ?? false,
      hidden_text_removed: html?.findings.hidden_text_removed ?? false,
      remote_images_removed: html?.findings.remote_images_removed ?? 0,
      forms_removed: html?.findings.forms_removed ?? false,
      iframes_removed: html?.findings.iframes_removed ?? false,
      injection_signals: injection,
      auth_failed: auth.failed,
    },
    automated: reasons.length > 0,
    automatedReasons: reasons,
    attachments: mail.attachments.map((a, partIndex) => ({
      partIndex,
      filename: a.filename ?? null,
      contentType: a.contentType || "application/octet-stream",
      contentId: a.cid ?? null,
      disposition: a.contentDisposition ?? null,
      size: a.content.length,
      sha256: createHash("sha256").update(a.content).digest("hex"),
    })),
    sizeBytes: raw.length,
    sha256,
  });
}

/** Every string of the parsed message made storable (NUL and unpaired surrogates → U+FFFD); buffers untouched. */
function storableStrings<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableStrings) as T;
  if (value && typeof value === "object" && !Buffer.isBuffer(value) && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, storableStrings(v)])) as T;
  }
  return value;
}
