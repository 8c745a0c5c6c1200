import { describe, expect, it } from "vitest";
import { renderGuide } from "./render-guide";

describe("the docs' markdown", () => {
  it("names a checklist's boxes, so a screen reader says what each one is (axe: label)", () => {
    const { html } = renderGuide("# Deploy\n\n- [ ] **Region** set\n- [x] Secrets set\n");
    expect(html).toContain('<input disabled="" type="checkbox" aria-label="To do"> <strong>Region</strong> set');
    expect(html).toContain('<input checked="" disabled="" type="checkbox" aria-label="Done"> Secrets set');
    expect(html).not.toMatch(/<input(?![^>]*aria-label)[^>]*>/);
  });
});
