import sanitize from "sanitize-html";
import { Parser } from "htmlparser2";
import { stripInvisible } from "./invisible-characters";
import { HiddenTracker } from "./hidden-text";
import type { MessageSecurity } from "../../../../db/schema";
import { mailRejected } from "./mail-limits";

export type HtmlFindings = Omit<MessageSecurity, "injection_signals" | "auth_failed"> & {
  /** Text that was hidden from a human reader (checked for injection too). */
  hidden_text: string;
};

const REMOTE = /^\s*(https?:|\/\/|ftp:)/i;
const SCRIPT_URL = /^\s*(javascript|vbscript|livescript|data:text\/html)/i;
const FORM_TAGS = new Set(["form", "input", "button", "select", "textarea", "option"]);
const FRAME_TAGS = new Set(["iframe", "frame", "frameset", "object", "embed", "applet", "portal"]);

/** The text of the document's style sheets, wherever they are (a second parse only when there is one). */
function styleSheets(html: string): string[] {
  if (!/<style/i.test(html)) return [];
  const sheets: string[] = [];
  let inStyle = 0;
  let length = 0;
  const parser = new Parser(
    {
      onopentag: (name) => void (name === "style" && inStyle++),
      onclosetag: (name) => void (name === "style" && inStyle > 0 && inStyle--),
      ontext: (text) => {
        if (inStyle && length < MAX_STYLE_CHARS) {
          sheets.push(text.slice(0, MAX_STYLE_CHARS - length));
          length += text.length;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return sheets;
}

/** Style sheet text judged for hidden text; beyond it, rules are not read (parseStyleSheet also keeps at most 500 selectors). */
const MAX_STYLE_CHARS = 64 * 1024;

/** Tag names no allowlist holds: an element renamed to one is dropped by sanitize-html's own linear path. */
const DROP_WITH_CONTENT = "agentdraft-hidden";
const DROP = "agentdraft-dropped";
/** Beyond this nesting, tags are dropped (their text kept): nothing after us recurses deeper (turndown). */
export const MAX_HTML_NESTING = 100;

export type HtmlInspection = Omit<HtmlFindings, "zero_width_removed" | "hidden_text_removed" | "hidden_text"> & {
  /** Elements in the document (a limit is applied to it before sanitising). */
  elements: number;
  hidden_text: string;
  hidden_elements: number;
  /** The document's style sheets, for the sanitiser to judge hidden text as the inspection did. */
  style_sheets: string[];
};

/**
 * What the untrusted HTML tried to do, found by parsing it (not by regex over markup), in one
 * linear pass: also the text of hidden elements (capped), which sanitising then drops whole.
 */
export function inspectHtml(html: string, limits: { maxElements?: number; maxDepth?: number } = {}, maxHiddenText = 64 * 1024): HtmlInspection {
  const { maxElements = Infinity, maxDepth = Infinity } = limits;
  let depth = 0;
  const found = { scripts_removed: false, styles_removed: false, remote_images_removed: 0, forms_removed: false, iframes_removed: false, elements: 0, hidden_elements: 0 };
  const hidden: string[] = [];
  let hiddenLength = 0;
  let hiddenDepth = 0; // > 0 while inside a hidden element (counted as sanitize-html counts)
  let current = "";
  const sheets = styleSheets(html);
  const tracker = HiddenTracker.forSheets(sheets);
  const keep = (part: string) => {
    found.hidden_elements++;
    hidden.push(part);
    hiddenLength += part.length;
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        // Limits first, and stop at once: parsers slow down on deep stacks, so a refused
        // message costs no more than the limit.
        if (++found.elements > maxElements) throw mailRejected("too_many_html_elements", `The HTML has more than ${maxElements} elements (MAIL_MAX_HTML_ELEMENTS).`, maxElements);
        if (++depth > maxDepth) throw mailRejected("html_too_deep", `The HTML nests elements more than ${maxDepth} deep (MAIL_MAX_HTML_DEPTH).`, maxDepth);
        if (name === "script") found.scripts_removed = true;
        if (name === "style" || name === "link" || "style" in attribs) found.styles_removed = true;
        if (FORM_TAGS.has(name)) found.forms_removed = true;
        if (FRAME_TAGS.has(name)) found.iframes_removed = true;
        for (const [attr, value] of Object.entries(attribs)) {
          if (/^on/i.test(attr)) found.scripts_removed = true;
          if (SCRIPT_URL.test(value) && /^(href|src|action|formaction|xlink:href|data|background|poster)$/i.test(attr)) found.scripts_removed = true;
        }
        const src = attribs.src ?? attribs.background ?? "";
        if ((name === "img" || name === "image" || name === "input" || attribs.background) && REMOTE.test(src)) found.remote_images_removed++;
        const hides = tracker.open(name, attribs) !== null;
        if (hiddenDepth > 0) hiddenDepth++;
        else if (hides) {
          hiddenDepth = 1;
          current = "";
        }
      },
      ontext(text) {
        if (hiddenDepth > 0) {
          if (hiddenLength + current.length < maxHiddenText) current += text.slice(0, maxHiddenText);
        } else if (text.trim() && tracker.textHidden() && hiddenLength < maxHiddenText) keep(text.trim().slice(0, maxHiddenText));
      },
      onclosetag() {
        depth--;
        tracker.close();
        if (hiddenDepth === 0) return;
        hiddenDepth--;
        if (hiddenDepth === 0 && current.trim()) keep(current.trim());
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { ...found, hidden_text: hidden.join("\n").slice(0, maxHiddenText), style_sheets: sheets };
}

const ALLOWED_TAGS = [
  "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3",
  "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "small", "span", "strong",
  "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
];

const ALLOWED_ATTRIBUTES = {
  a: ["href", "title"],
  img: ["src", "alt", "width", "height"],
  td: ["colspan", "rowspan"],
  th: ["colspan", "rowspan"],
};

/**
 * Zero-trust sanitising of inbound HTML: only a small allowlist of tags and attributes
 * survives; scripts, styles, event handlers, forms, frames, remote images (tracking pixels)
 * and hidden text are removed (hidden elements with their content); zero-width and bidi
 * control characters are stripped. Nothing left can run script or load anything remote.
 */
export function sanitizeEmailHtml(html: string, inspected: HtmlInspection = inspectHtml(html)): { html: string; findings: HtmlFindings } {
  const { elements: _elements, hidden_elements: hiddenElements, hidden_text: hiddenRaw, style_sheets: sheets, ...flags } = inspected;
  // Judged as the inspection judged, element by element in the same parse order (sanitize-html
  // calls onOpenTag for every element, then transformTags for the one just opened).
  const tracker = HiddenTracker.forSheets(sheets);
  let opened: string | null = null;
  const clean = sanitize(html, {
    onOpenTag: (name, attribs) => {
      opened = tracker.open(name, attribs);
    },
    onCloseTag: () => tracker.close(),
    // Text a reader cannot see where it stands (too small, invisible, the background's colour) goes.
    textFilter: (text) => (tracker.textHidden() ? "" : text),
    allowedTags: ALLOWED_TAGS,
    disallowedTagsMode: "discard",
    // Hidden elements are renamed to DROP_WITH_CONTENT, which is "non-text": sanitize-html then
    // skips their whole subtree as it goes. (Its exclusiveFilter, used before, re-copies the
    // output for every element it drops: quadratic, seconds for a crafted message.)
    nonTextTags: [DROP_WITH_CONTENT, "script", "style", "textarea", "option", "noscript", "title", "head", "template", "iframe", "object", "embed", "svg", "math", "xmp", "noembed", "noframes", "plaintext", "select"],
    nestingLimit: MAX_HTML_NESTING,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesByTag: { img: ["cid", "data"] },
    allowedSchemesAppliedToAttributes: ["href", "src"],
    allowProtocolRelative: false,
    allowedStyles: {},
    transformTags: {
      "*": (tagName, attribs) => {
        if (opened !== null) return { tagName: DROP_WITH_CONTENT, attribs: {} };
        // Images that survive must be inline (cid:/data:image); anything else is dropped.
        if (tagName === "img" && !/^(cid:|data:image\/)/i.test(attribs.src ?? "")) return { tagName: DROP, attribs: {} };
        if (tagName !== "a") return { tagName, attribs };
        // Links keep only absolute http(s)/mailto targets, judged after removing every
        // whitespace and control character a browser's URL parser would skip.
        const { href, ...rest } = attribs;
        const target = (href ?? "").replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g, "");
        return { tagName, attribs: /^(https?:\/\/|mailto:)/i.test(target) ? { ...rest, href: target } : rest };
      },
    },
  });
  // sanitize-html keeps a dropped element's new name for the next element closed at its depth
  // (a stale transformMap entry), writing `</agentdraft-hidden>` for, say, `</em>`: a second pass
  // over the clean HTML ignores those stray end tags and closes what they left open.
  const stripped = stripInvisible(/<\/agentdraft-/.test(clean) ? sanitize(clean, { allowedTags: ALLOWED_TAGS, allowedAttributes: ALLOWED_ATTRIBUTES, allowedSchemes: ["http", "https", "mailto"], allowedSchemesByTag: { img: ["cid", "data"] }, allowProtocolRelative: false, allowedStyles: {} }) : clean);
  const hiddenText = stripInvisible(hiddenRaw).text;
  return {
    html: stripped.text,
    findings: { ...flags, zero_width_removed: stripped.removed, hidden_text_removed: hiddenElements > 0, hidden_text: hiddenText },
  };
}
