import fs from "node:fs";
import path from "node:path";
import { Marked, type Tokens } from "marked";
import { routeOfFile } from "./pages";

export const GUIDE_FILE = path.join(process.cwd(), "docs", "getting-started.md");

/**
 * A heading's anchor as GitHub makes it (github-slugger): the text without markup, lower case,
 * punctuation dropped, each space a hyphen. The same anchors work on GitHub and in the app, so a
 * link such as `production.md#deploying-on-vercel--neon--inngest--resend` works in both.
 */
export const slug = (text: string) =>
  text
    .replace(/<[^>]+>|`|\*\*?|\[([^\]]*)\]\([^)]*\)/g, (_m, linkText?: string) => linkText ?? "")
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");

/** Gives each heading of one page its anchor in order, a repeated one numbered as GitHub does (`usage`, `usage-1`). */
export function anchorer(): (heading: string) => string {
  const seen = new Map<string, number>();
  return (heading) => {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}-${n}` : base;
  };
}

/**
 * Where a link in a docs file goes when the app serves it: another docs file (`handoffs.md#claim`)
 * becomes the page that serves it (`/docs/handoffs#claim`); absolute paths, anchors and URLs stay;
 * any other file of the repository (`../lib/x.ts`) is not served, so it gets no link (null).
 */
export function servedHref(href: string): string | null {
  if (/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(href)) return href;
  const [target = "", anchor] = href.split("#");
  const file = path.posix.normalize(path.posix.join("docs", target));
  const route = file.startsWith("docs/") && !file.slice(5).includes("/") ? routeOfFile(file.slice(5)) : undefined;
  return route ? route + (anchor ? `#${anchor}` : "") : null;
}

/**
 * A docs file (docs/getting-started.md by default) as HTML with anchored headings, links to other
 * docs files pointing at the pages that serve them, and its sections for a table of contents. The
 * markdown is the repository's own file (the same text the repo shows), not user input, so its
 * HTML is trusted.
 */
export function renderGuide(markdown = fs.readFileSync(GUIDE_FILE, "utf8")) {
  const sections: { id: string; title: string }[] = [];
  const anchor = anchorer();
  type Parser = { parser: { parseInline: (t: Tokens.Generic[]) => string } };
  const marked = new Marked({
    renderer: {
      heading(this: Parser, { tokens, depth, text }: Tokens.Heading) {
        const id = anchor(text);
        if (depth === 2) sections.push({ id, title: text.replace(/`/g, "") });
        return `<h${depth} id="${id}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link(this: Parser, { href, title, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens);
        const to = servedHref(href);
        if (to === null) return inner;
        return `<a href="${escapeAttr(to)}"${title ? ` title="${escapeAttr(title)}"` : ""}>${inner}</a>`;
      },
    },
  });
  const html = labelledChecklists(keyboardScrollable(marked.parse(contentsBox(markdown), { async: false })));
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? "Getting started";
  return { title, html, sections };
}

/**
 * The contents list a docs file carries (generated between `<!-- generated:toc -->` markers) in a
 * box of its own, which guide.css hides where the page's sidebar lists the same sections.
 */
export function contentsBox(markdown: string): string {
  return markdown.replace(/<!-- generated:toc -->\n([\s\S]*?)<!-- \/generated:toc -->/, (_m, list: string) => (list.trim() ? `<div class="guide-toc">\n\n${list}\n</div>` : ""));
}

/** A checklist's boxes (`- [ ]`) are named, as every form control must be (axe: label). */
export function labelledChecklists(html: string): string {
  return html.replace(/<input (checked="" )?disabled="" type="checkbox">/g, (_, checked?: string) => `<input ${checked ?? ""}disabled="" type="checkbox" aria-label="${checked ? "Done" : "To do"}">`);
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

const plain = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&[a-z]+;|&#\d+;/g, " ").replace(/\s+/g, " ").trim();

/**
 * What may scroll sideways on a phone takes keyboard focus, so it can be scrolled without a
 * mouse (axe: scrollable-region-focusable): code blocks, and tables, each in a box of its own
 * (named by its column heads) that scrolls instead of widening the page.
 */
export function keyboardScrollable(html: string): string {
  return html
    .replace(/<pre>/g, '<pre tabindex="0">')
    .replace(/<table>([\s\S]*?)<\/table>/g, (table, inner: string) => {
      const heads = [.../<thead>([\s\S]*?)<\/thead>/.exec(inner)?.[1]?.matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g) ?? []].map((m) => plain(m[1]!));
      const label = heads.length ? `Table: ${heads.join(", ")}` : "Table";
      return `<div class="table-scroll" tabindex="0" role="region" aria-label="${label.replace(/"/g, "&quot;")}">${table}</div>`;
    });
}
