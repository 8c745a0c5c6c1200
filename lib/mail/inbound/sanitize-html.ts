import sanitize from "sanitize-html";
import { Parser } from "htmlparser2";
import { stripInvisible } from "./invisible-characters";
import type { MessageSecurity } from "../../../db/schema";

export type HtmlFindings = Omit<MessageSecurity, "injection_signals" | "auth_failed"> & {
  /** Text that was hidden from a human reader (checked for injection too). */
  hidden_text: string;
};

const HIDDEN_STYLE =
  /(display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(\.0+)?\s*(;|$)|font-size\s*:\s*0+(\.0+)?\s*(px|pt|em|rem|%)?\s*(;|$)|(max-)?height\s*:\s*0+(px)?\s*(;|$)|color\s*:\s*transparent|left\s*:\s*-\d{3,}px|text-indent\s*:\s*-\d{3,}px|clip\s*:\s*rect\(\s*0)/i;
const HIDDEN_MARK = "data-agentdraft-hidden";
const REMOTE = /^\s*(https?:|\/\/|ftp:)/i;
const SCRIPT_URL = /^\s*(javascript|vbscript|livescript|data:text\/html)/i;
const FORM_TAGS = new Set(["form", "input", "button", "select", "textarea", "option"]);
const FRAME_TAGS = new Set(["iframe", "frame", "frameset", "object", "embed", "applet", "portal"]);

const isHidden = (attribs: Record<string, string>) =>
  "hidden" in attribs || HIDDEN_STYLE.test(attribs.style ?? "") || /^\s*0\s*$/.test(attribs.width ?? "x") && /^\s*0\s*$/.test(attribs.height ?? "x");

/** What the untrusted HTML tried to do, found by parsing it (not by regex over markup). */
function inspect(html: string): Omit<HtmlFindings, "zero_width_removed" | "hidden_text" | "hidden_text_removed"> {
  const found = { scripts_removed: false, styles_removed: false, remote_images_removed: 0, forms_removed: false, iframes_removed: false };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
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
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return found;
}

const ALLOWED_TAGS = [
  "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3",
  "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "small", "span", "strong",
  "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
];

/**
 * Zero-trust sanitising of inbound HTML: only a small allowlist of tags and attributes
 * survives; scripts, styles, event handlers, forms, frames, remote images (tracking pixels)
 * and hidden text are removed (hidden elements with their content); zero-width and bidi
 * control characters are stripped. Nothing left can run script or load anything remote.
 */
export function sanitizeEmailHtml(html: string): { html: string; findings: HtmlFindings } {
  const inspected = inspect(html);
  const hiddenParts: string[] = [];
  const clean = sanitize(html, {
    allowedTags: ALLOWED_TAGS,
    disallowedTagsMode: "discard",
    nonTextTags: ["script", "style", "textarea", "option", "noscript", "title", "head", "template", "iframe", "object", "embed", "svg", "math", "xmp", "noembed", "noframes", "plaintext", "select"],
    allowedAttributes: {
      a: ["href", "title"],
      img: ["src", "alt", "width", "height"],
      td: ["colspan", "rowspan"],
      th: ["colspan", "rowspan"],
      "*": [HIDDEN_MARK],
    },
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesByTag: { img: ["cid", "data"] },
    allowedSchemesAppliedToAttributes: ["href", "src"],
    allowProtocolRelative: false,
    allowedStyles: {},
    transformTags: {
      "*": (tagName, attribs) => (isHidden(attribs) ? { tagName, attribs: { ...attribs, [HIDDEN_MARK]: "1" } } : { tagName, attribs }),
      // Links keep only absolute http(s)/mailto targets, judged after removing every
      // whitespace and control character a browser's URL parser would skip.
      a: (tagName, { href, ...attribs }) => {
        const target = (href ?? "").replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g, "");
        const out: Record<string, string> = { ...attribs };
        if (/^(https?:\/\/|mailto:)/i.test(target)) out.href = target;
        if (isHidden(attribs)) out[HIDDEN_MARK] = "1";
        return { tagName, attribs: out };
      },
    },
    exclusiveFilter: (frame) => {
      if (frame.attribs[HIDDEN_MARK]) {
        if (frame.text.trim()) hiddenParts.push(frame.text.trim());
        return true;
      }
      // Images that survived must be inline (cid:/data:); anything else is dropped.
      if (frame.tag === "img" && !/^(cid:|data:image\/)/i.test(frame.attribs.src ?? "")) return true;
      return false;
    },
  });
  const stripped = stripInvisible(clean);
  const hiddenText = stripInvisible(hiddenParts.join("\n")).text;
  return {
    html: stripped.text.replaceAll(` ${HIDDEN_MARK}="1"`, ""),
    findings: { ...inspected, zero_width_removed: stripped.removed, hidden_text_removed: hiddenParts.length > 0, hidden_text: hiddenText },
  };
}
