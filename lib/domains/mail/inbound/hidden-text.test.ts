import { describe, expect, it, vi } from "vitest";
import { HIDDEN, VISIBLE, hiddenCases, visibleCases } from "../../../../test/corpora/hidden-text";
import { composeMime } from "../../../../test/helpers/mime";
import { parseMessage } from "./parse-message";
import { inspectHtml, sanitizeEmailHtml } from "./sanitize-html";

// Selector matching, counted as it runs: per document (each tracker has its own step budget), the
// steps up the tree it walks and the rules it checks.
const matching = vi.hoisted(() => new Map<{ steps: number }, { calls: number; walked: number; longestPath: number; ranOut: boolean }>());
vi.mock("./css-rules", async (importOriginal) => {
  const real = await importOriginal<typeof import("./css-rules")>();
  return {
    ...real,
    matches: (selector: Parameters<typeof real.matches>[0], path: Parameters<typeof real.matches>[1], budget: { steps: number }) => {
      const seen = matching.get(budget) ?? { calls: 0, walked: 0, longestPath: 0, ranOut: false };
      matching.set(budget, seen);
      seen.calls++;
      seen.longestPath = Math.max(seen.longestPath, path.length);
      const before = budget.steps;
      const matched = real.matches(selector, path, budget);
      seen.walked += before - budget.steps; // the path this call walked up (nothing once the budget is spent)
      if (budget.steps <= 0) seen.ranOut = true;
      return matched;
    },
  };
});

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
    matching.clear();
    const inspected = inspectHtml(html);
    sanitizeEmailHtml(html, inspected);
    expect(inspected.elements).toBeGreaterThan(20_000);
    // The work done, not the time taken: each judging of the document (the inspection's, the
    // sanitiser's) walks at most its 2,000,000 steps up the tree (the last match may overrun by one
    // path) and checks at most 3,000,000 rules, however costly the sheet; this sheet uses them up.
    expect(matching.size).toBe(2);
    for (const spent of matching.values()) {
      expect(spent.walked).toBeLessThanOrEqual(2_000_000 + spent.longestPath);
      expect(spent.calls).toBeLessThanOrEqual(3_000_000);
      expect(spent.ranOut).toBe(true);
    }
    // Past the budget the rest is judged hidden (fails closed), and flagged.
    expect(inspected.hidden_elements).toBeGreaterThan(0);
  });
});
