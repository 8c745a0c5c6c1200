import fs from "node:fs";
import path from "node:path";
import { Marked, type Tokens } from "marked";

export const GUIDE_FILE = path.join(process.cwd(), "docs", "getting-started.md");

export const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]+>|`/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/**
 * docs/getting-started.md as HTML with anchored headings, and its sections for a table of
 * contents. The markdown is the repository's own file (the same guide the repo shows), not
 * user input, so its HTML is trusted.
 */
export function renderGuide(markdown = fs.readFileSync(GUIDE_FILE, "utf8")) {
  const sections: { id: string; title: string }[] = [];
  const marked = new Marked({
    renderer: {
      heading(this: { parser: { parseInline: (t: Tokens.Generic[]) => string } }, { tokens, depth, text }: Tokens.Heading) {
        const id = slug(text);
        if (depth === 2) sections.push({ id, title: text.replace(/`/g, "") });
        return `<h${depth} id="${id}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
  const html = labelledChecklists(keyboardScrollable(marked.parse(markdown, { async: false })));
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? "Getting started";
  return { title, html, sections };
}

/** A checklist's boxes (`- [ ]`) are named, as every form control must be (axe: label). */
export function labelledChecklists(html: string): string {
  return html.replace(/<input (checked="" )?disabled="" type="checkbox">/g, (_, checked?: string) => `<input ${checked ?? ""}disabled="" type="checkbox" aria-label="${checked ? "Done" : "To do"}">`);
}

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
