import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { DOCS_PAGES } from "./pages";
import { anchorer, renderGuide } from "./render-guide";

describe("the docs' markdown", () => {
  it("names a checklist's boxes, so a screen reader says what each one is (axe: label)", () => {
    const { html } = renderGuide("# Deploy\n\n- [ ] **Region** set\n- [x] Secrets set\n");
    expect(html).toContain('<input disabled="" type="checkbox" aria-label="To do"> <strong>Region</strong> set');
    expect(html).toContain('<input checked="" disabled="" type="checkbox" aria-label="Done"> Secrets set');
    expect(html).not.toMatch(/<input(?![^>]*aria-label)[^>]*>/);
  });
});

describe("anchors and links of the docs' pages", () => {
  it("gives headings the anchors GitHub gives them, so one link works in the repository and in the app", () => {
    const anchor = anchorer();
    expect(anchor("Deploying on Vercel + Neon + Inngest + Resend")).toBe("deploying-on-vercel--neon--inngest--resend");
    expect(anchor("The agent API (`/api/v1`)")).toBe("the-agent-api-apiv1");
    expect(anchor("5. Connect an MCP client")).toBe("5-connect-an-mcp-client");
    expect(anchor("Microsoft 365 / Outlook sync")).toBe("microsoft-365--outlook-sync");
    expect(anchor("API overhead: `bench:api`")).toBe("api-overhead-benchapi");
    expect(anchor("Usage")).toBe("usage");
    expect(anchor("Usage")).toBe("usage-1");
  });

  it("serves a link to another docs file as a link to the page that serves it, and a link to a source file as its text", () => {
    const { html } = renderGuide(
      "# T\n\nSee [claims](handoffs.md#claim), [deploy](./deploy-checklist.md), [here](#t), [the API](/docs/api), [Neon](https://neon.tech) and [the engine](../lib/jobs/engine.ts).\n",
    );
    expect(html).toContain('<a href="/docs/handoffs#claim">claims</a>');
    expect(html).toContain('<a href="/docs/deploy">deploy</a>');
    expect(html).toContain('<a href="#t">here</a>');
    expect(html).toContain('<a href="/docs/api">the API</a>');
    expect(html).toContain('<a href="https://neon.tech">Neon</a>');
    expect(html).toContain("and the engine.");
    expect(html).not.toContain("engine.ts");
  });

  it.each(DOCS_PAGES.filter((p) => p.file).map((p) => [p.route, p.file!] as const))("renders %s (docs/%s) with its title and a contents list", (_route, file) => {
    const markdown = fs.readFileSync(`docs/${file}`, "utf8");
    const { title, html, sections } = renderGuide(markdown);
    expect(html).toContain(`<h1 id=`);
    expect(title).toBe(/^# (.+)$/m.exec(markdown)![1]);
    expect(sections.length).toBeGreaterThanOrEqual(2);
    // The contents list the file carries (generated) links to each section the page anchors.
    for (const s of sections) expect(html).toContain(`<a href="#${s.id}">`);
  });
});

describe("a docs page's own contents list", () => {
  it("sits in a box the sidebar's width hides, and still renders as a list of links", () => {
    const { html } = renderGuide("# T\n\n<!-- generated:toc -->\n**Contents**\n\n- [A](#a)\n<!-- /generated:toc -->\n\n## A\n\ntext\n");
    expect(html).toMatch(/<div class="guide-toc">\s*<p><strong>Contents<\/strong><\/p>\s*<ul>\s*<li><a href="#a">A<\/a><\/li>\s*<\/ul>\s*<\/div>/);
    expect(renderGuide("# T\n\n<!-- generated:toc -->\n<!-- /generated:toc -->\n\ntext\n").html).not.toContain("guide-toc");
  });
});
