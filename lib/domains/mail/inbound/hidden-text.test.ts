import { describe, expect, it } from "vitest";
import { HIDDEN, VISIBLE, hiddenCases, visibleCases } from "../../../../test/corpora/hidden-text";
import { composeMime } from "../../../../test/helpers/mime";
import { parseMessage } from "./parse-message";
import { inspectHtml, sanitizeEmailHtml } from "./sanitize-html";

const around = (html: string) => `<html><head><title>Invoice</title></head><body><p>Dear team, the invoice is attached.</p>${html}<p>Kind regards</p></body></html>`;
const textOf = (html: string) => html.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");

describe("hidden text corpus (test/corpora/hidden-text.ts)", () => {
  for (const c of hiddenCases) {
    it(`removes and flags: ${c.name}`, () => {
      const { html, findings } = sanitizeEmailHtml(around(c.html));
      expect(textOf(html)).not.toContain("HIDDEN");
      expect(textOf(html)).toContain("Dear team, the invoice is attached.");
      expect(findings.hidden_text_removed).toBe(true);
      expect(findings.hidden_text).toContain(HIDDEN);
      expect(html).not.toContain("agentdraft-");
    });
  }
  for (const c of visibleCases) {
    it(`keeps what a reader sees: ${c.name}`, () => {
      const { html, findings } = sanitizeEmailHtml(around(c.html));
      expect(textOf(html)).toContain(VISIBLE);
      expect(findings.hidden_text).not.toContain("VISIBLE");
    });
  }

  // (The body-attribute case is left out: a second <body> lends its colours to the whole document, as browsers do.)
  it("the whole corpus in one message: the agent's markdown and text carry none of it, and the injection scan names the hidden text", async () => {
    const raw = await composeMime({ from: "Mallory <mallory@evil.test>", to: "ops@agents.localhost", subject: "Invoice", html: around(hiddenCases.filter((c) => !c.html.startsWith("<body")).map((c) => `<div>${c.html}</div>`).join("") + visibleCases.map((c) => `<div>${c.html}</div>`).join("")) });
    const m = await parseMessage(raw);
    expect(m.text).not.toContain("HIDDEN");
    for (const body of [m.markdown, m.htmlSanitized ?? ""]) {
      expect(body).not.toContain("HIDDEN");
      expect(body.split(VISIBLE).length - 1).toBe(visibleCases.length);
    }
    // No stray end tag of the dropped elements is left, and what they cut off is closed again.
    expect(m.htmlSanitized).not.toContain("agentdraft-");
    expect(m.markdown).toContain(`\n${VISIBLE}`);
    expect(m.security.hidden_text_removed).toBe(true);
    expect(m.security.injection_signals).toEqual(expect.arrayContaining([expect.objectContaining({ signal: "ignore_instructions", where: "hidden_html" })]));
  });

  it("judging style sheets stays linear: a costly style sheet (universal chains) over 20,000 elements stays bounded, and fails closed", () => {
    const rules = Array.from({ length: 500 }, (_, i) => `div .c${i} span.x${i}{color:#fff} * * * p *{font-size:12px} p{margin:0}`).join("\n");
    const html = `<style>${rules}</style>` + "<div class='a'><p><span class='x1'>t</span></p></div>".repeat(6_700);
    const started = performance.now();
    const inspected = inspectHtml(html);
    sanitizeEmailHtml(html, inspected);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(inspected.elements).toBeGreaterThan(20_000);
    // Past the budget the rest is judged hidden (fails closed), and flagged.
    expect(inspected.hidden_elements).toBeGreaterThan(0);
  });
});
