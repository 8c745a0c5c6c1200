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
  const html = marked.parse(markdown, { async: false });
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? "Getting started";
  return { title, html, sections };
}
