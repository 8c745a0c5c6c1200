import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_PAGES } from "./pages";

// The docs' menu and the README's index come from lib/composition/docs/pages.ts: every page it lists is
// served (app/docs/<route>/page.tsx renders its file), and every docs file and docs page is listed.
describe("the docs pages the app serves", () => {
  it("serves every page lib/composition/docs/pages.ts lists, each from its own file", () => {
    for (const page of DOCS_PAGES) {
      const file = path.join("app", page.route, "page.tsx");
      expect(fs.existsSync(file), `${file} for ${page.route}`).toBe(true);
      const source = fs.readFileSync(file, "utf8");
      if (page.file && page.route !== "/docs") expect(source, file).toContain(`"${page.file}"`);
    }
  });

  it("lists every docs file and every docs page", () => {
    const files = fs.readdirSync("docs").filter((f) => f.endsWith(".md"));
    expect(files.filter((f) => !DOCS_PAGES.some((p) => p.file === f))).toEqual([]);
    const routes = fs
      .readdirSync("app/docs", { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join("app/docs", e.name, "page.tsx")))
      .map((e) => `/docs/${e.name}`);
    expect(routes.filter((r) => !DOCS_PAGES.some((p) => p.route === r))).toEqual([]);
  });
});
