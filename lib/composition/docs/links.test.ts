import fs from "node:fs";
import path from "node:path";
import { Lexer, type Token, type Tokens } from "marked";
import { describe, expect, it } from "vitest";
import { headings } from "./generate-docs";
import { DOCS_PAGES } from "./pages";
import { anchorer, renderGuide } from "./render-guide";

// Every relative link of the README, CONTRIBUTING.md, ARCHITECTURE.md, bench/README.md, sdk/README.md and docs/
// leads to a file that exists (and to a heading of it, when it names one), and every link the
// app's docs pages make to another docs page leads to a page it serves.

const FILES = ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "bench/README.md", "sdk/README.md", ...fs.readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Every link and image of a markdown file, code spans and blocks left out (marked's tokens). */
function links(markdown: string): string[] {
  const out: string[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === "link" || t.type === "image") out.push((t as Tokens.Link).href);
      const nested = t as { tokens?: Token[]; items?: Token[]; rows?: { tokens: Token[] }[][]; header?: { tokens: Token[] }[] };
      if (nested.tokens) walk(nested.tokens);
      if (nested.items) walk(nested.items);
      if (nested.header) for (const c of nested.header) walk(c.tokens);
      if (nested.rows) for (const row of nested.rows) for (const c of row) walk(c.tokens);
    }
  };
  walk(Lexer.lex(markdown, { gfm: true }));
  return out;
}

/** A markdown file's anchors, as GitHub and the app make them. */
const anchorsOf = (file: string) => {
  const anchor = anchorer();
  return new Set(headings(fs.readFileSync(file, "utf8")).map(([, text]) => anchor(text)));
};

/** The app's routes (pages and route handlers) as patterns: `/docs/api`, `/api/v1/holds/[id]`. */
function appRoutes(): RegExp[] {
  const out: RegExp[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^(page\.tsx|route\.ts)$/.test(e.name)) {
        const segments = path.relative("app", dir).split(path.sep).filter((s) => s && !/^\(.*\)$/.test(s));
        out.push(new RegExp(`^/${segments.map((s) => (/^\[.*\]$/.test(s) ? "[^/]+" : s.replace(/[.]/g, "\\."))).join("/")}/?$`));
      }
    }
  };
  walk("app");
  return out;
}

const broken: string[] = [];
function check(file: string, href: string, routes: RegExp[]) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return; // https:, mailto:
  const [target = "", anchor] = href.split("#");
  if (target.startsWith("/")) {
    // A path the app serves: docs pages must be ones lib/composition/docs/pages.ts lists, with the heading named.
    const page = DOCS_PAGES.find((p) => p.route === target);
    if (target.startsWith("/docs") && !page) return void broken.push(`${file}: ${href} (no such docs page)`);
    if (!target.startsWith("/docs") && !routes.some((r) => r.test(target))) return void broken.push(`${file}: ${href} (no such route in app/)`);
    if (anchor && page?.file && !anchorsOf(`docs/${page.file}`).has(anchor)) broken.push(`${file}: ${href} (no heading #${anchor} in docs/${page.file})`);
    return;
  }
  const resolved = target ? path.normalize(path.join(path.dirname(file), target)) : file;
  if (!fs.existsSync(resolved)) return void broken.push(`${file}: ${href} (${resolved} does not exist)`);
  if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${href} (no heading #${anchor} in ${resolved})`);
}

describe("links in the docs", () => {
  it("every relative link of the README, CONTRIBUTING.md, ARCHITECTURE.md, bench/README.md, sdk/README.md and docs/ resolves, anchors included", () => {
    const routes = appRoutes();
    broken.length = 0;
    let count = 0;
    for (const file of FILES) {
      for (const href of links(fs.readFileSync(file, "utf8"))) {
        count++;
        check(file, href, routes);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it("every link a served docs page makes to another docs page goes to a page the app serves, and to a heading it has", () => {
    const bad: string[] = [];
    for (const page of DOCS_PAGES.filter((p) => p.file)) {
      const { html } = renderGuide(fs.readFileSync(`docs/${page.file}`, "utf8"));
      for (const [, href] of html.matchAll(/<a href="([^"]*)"/g)) {
        const [target = "", anchor] = href!.replace(/&amp;/g, "&").split("#");
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || (!target && !anchor)) continue;
        if (!target) {
          if (!new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])).has(anchor)) bad.push(`${page.route}: #${anchor}`);
          continue;
        }
        if (!target.startsWith("/docs")) continue; // the API's own paths (/api/v1/openapi.json), checked above
        const to = DOCS_PAGES.find((p) => p.route === target);
        if (!to) bad.push(`${page.route}: ${href} (no such docs page)`);
        else if (anchor && to.file && !anchorsOf(`docs/${to.file}`).has(anchor)) bad.push(`${page.route}: ${href} (no heading #${anchor})`);
        else if (target.endsWith(".md")) bad.push(`${page.route}: ${href} (a markdown file, not a page)`);
      }
    }
    expect(bad).toEqual([]);
  });
});
