import EmailReplyParser from "email-reply-parser";
import { DomUtils, parseDocument } from "htmlparser2";

type AnyNode = ReturnType<typeof parseDocument>["children"][number];
type Element = Extract<AnyNode, { name: string; children: unknown }>;

/**
 * The new text of a reply, without quoted history and signature (`extracted_text`), and the
 * same cut made in the sanitised HTML (`extracted_html`). Text: crisp-oss `email-reply-parser`
 * (attribution lines of Gmail, Outlook, Apple Mail in many languages, Outlook header blocks,
 * `-----Original Message-----`, `-- ` signatures, "Sent from my iPhone"...). HTML: cut where the
 * text's quoted part starts (its first line found in the HTML's text), else at the first
 * `<blockquote>`. Forwards (by subject or marker line) and inline replies (answers between quoted
 * lines) are kept whole: there the quoted part is the content. Bounded: the parser reads the first EXTRACT_SCAN_CHARS of text, the HTML cut
 * runs on at most EXTRACT_HTML_MAX_CHARS. Never throws: on any failure the full text stands in
 * and `fallback` says why.
 */
export type Extraction = { text: string; html: string | null; fallback: ExtractionFallback | null };
export type ExtractionFallback = "error" | "too_large";

/** The parser's cost grows with the text: quoted history is looked for in this much of it. */
export const EXTRACT_SCAN_CHARS = 64 * 1024;
export const EXTRACT_HTML_MAX_CHARS = 512 * 1024;

/** Letters and digits only, lower-cased: text and HTML of the same mail agree on these. */
const squash = (s: string) => s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

type TextCut = { text: string; quoteStart: string | null };

/** An attribution line left above the quote (Gmail's Japanese "2026年11月30日(月) 16:12 名前 <a@b>:"): it names the quoted mail, not new text. */
const DANGLING_ATTRIBUTION = /\n[^\n]*(?:<[^<>\s]+@[^<>\s]+>|\d{1,2}:\d{2})[^\n]*[:：]\s*$/;

/** A forward's subject (Fwd:, FW:, WG:, TR:, RV:, Doorst:, ENC:, 転送:) or its marker line: what follows is the content, not history. */
const FORWARD_SUBJECT = /^\s*(?:fwd?|wg|tr|rv|doorst|enc|転送)\s*[:：]/i;
const FORWARD_MARKER = /^[\s>-]*(?:begin forwarded message|-+ ?forwarded message|-+ ?weitergeleitete nachricht|-+ ?message transféré|-+ ?mensaje reenviado|-+ ?doorgestuurd bericht|-+ ?転送されたメッセージ)/im;

export function extractReplyText(text: string, subject = ""): TextCut {
  if (FORWARD_SUBJECT.test(subject) || FORWARD_MARKER.test(text.slice(0, EXTRACT_SCAN_CHARS))) return { text: text.trim(), quoteStart: null };
  const scanned = text.slice(0, EXTRACT_SCAN_CHARS);
  const fragments = new EmailReplyParser().read(scanned).getFragments();
  const visible = fragments
    .filter((f) => !f.isHidden())
    .map((f) => f.getContent())
    .join("\n")
    .replace(/~*$/, "")
    .trim();
  const hidden = fragments.find((f) => f.isHidden() && f.getContent().trim());
  if (!hidden) return { text: text.trim(), quoteStart: null };
  // Answers written between quoted lines (inline replies) make sense only with the quotes: keep it whole.
  const firstQuoted = fragments.findIndex((f) => f.isQuoted() && f.getContent().trim());
  if (firstQuoted >= 0 && fragments.slice(firstQuoted + 1).some((f) => !f.isHidden() && f.getContent().trim())) return { text: text.trim(), quoteStart: null };
  const cut = visible.replace(DANGLING_ATTRIBUTION, "").trim();
  const dropped = visible.length > cut.length ? visible.slice(cut.length) : hidden.getContent();
  const firstLine = dropped.split("\n").map((l) => l.replace(/^[>\s]+/, "").trim()).find((l) => squash(l).length > 0) ?? null;
  return { text: cut, quoteStart: firstLine };
}


const isElement = (n: AnyNode): n is Element => n.type === "tag" || n.type === "script" || n.type === "style";

/** Removes `node` and everything after it in document order. */
function cutFrom(node: AnyNode): void {
  let at: AnyNode | null = node;
  while (at && at.parent) {
    const parent: AnyNode = at.parent as AnyNode;
    let next = at.next;
    while (next) {
      const after = next.next;
      DomUtils.removeElement(next);
      next = after;
    }
    at = parent;
  }
  DomUtils.removeElement(node);
}

/** Drops trailing rules, line breaks and elements left empty at the end of the cut. */
function trimTrailing(nodes: AnyNode[]): void {
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i]!;
    if (n.type === "text" && !DomUtils.textContent(n).replace(/\u00a0/g, " ").trim()) DomUtils.removeElement(n);
    else if (isElement(n) && (n.name === "hr" || n.name === "br")) DomUtils.removeElement(n);
    else if (isElement(n) && n.name !== "img") {
      trimTrailing([...n.children]);
      if (!n.children.length) DomUtils.removeElement(n);
      else return;
    } else return;
  }
}

export function extractReplyHtml(html: string, quoteStart: string | null): string | null {
  const doc = parseDocument(html);
  const needle = quoteStart ? squash(quoteStart).slice(0, 32) : "";
  let cutAt: AnyNode | null = null;
  if (needle) {
    // The text node where the quoted part's first line starts, found in the running text of the HTML.
    const texts = DomUtils.filter((n) => n.type === "text", doc.children, true) as AnyNode[];
    let running = "";
    const starts: number[] = [];
    for (const t of texts) {
      starts.push(running.length);
      running += squash(DomUtils.textContent(t));
    }
    const at = running.indexOf(needle);
    if (at >= 0) {
      let i = starts.length - 1;
      while (i > 0 && starts[i]! > at) i--;
      while (i < texts.length - 1 && starts[i + 1] === starts[i] && starts[i]! <= at && squash(DomUtils.textContent(texts[i]!)) === "") i++;
      cutAt = texts[i]!;
      // Cut at the outermost element that holds only the quoted part's start (the attribution's div, Outlook's <b>From:</b> line).
      while (cutAt.parent && cutAt.parent.type !== "root" && (cutAt.parent as Element).children[0] === cutAt && !["body", "html"].includes((cutAt.parent as Element).name)) cutAt = cutAt.parent as AnyNode;
    }
  }
  if (!cutAt) cutAt = DomUtils.findOne((n) => n.name === "blockquote", doc.children, true);
  if (!cutAt) return html;
  cutFrom(cutAt);
  trimTrailing([...doc.children]);
  return DomUtils.getOuterHTML(doc.children);
}

export function extractReply(text: string, html: string | null, subject = ""): Extraction {
  try {
    const cut = extractReplyText(text, subject);
    // Past the scanned part with no quote found in it, the new text may go on: keep the full text.
    if (!cut.quoteStart && text.length > EXTRACT_SCAN_CHARS) return { text, html, fallback: "too_large" };
    const extractedHtml = html === null ? null : html.length > EXTRACT_HTML_MAX_CHARS ? html : extractReplyHtml(html, cut.quoteStart);
    return { text: cut.text, html: extractedHtml, fallback: null };
  } catch {
    return { text, html, fallback: "error" };
  }
}
