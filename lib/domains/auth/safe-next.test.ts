import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

describe("safeNext", () => {
  it("keeps a path on this site", () => {
    expect(safeNext("/oauth/authorize?client_id=oac_1&state=a%2Fb")).toBe("/oauth/authorize?client_id=oac_1&state=a%2Fb");
  });
  it("sends anything else to the overview (no open redirect)", () => {
    for (const bad of [undefined, "", "https://evil.test/", "//evil.test/x", "/\\evil.test", "\\\\evil.test", "javascript:alert(1)", "evil.test", `/${"a".repeat(5000)}`]) {
      expect(safeNext(bad), String(bad)).toBe("/overview");
    }
  });
});
