import { describe, expect, it } from "vitest";
import { filesMarked, suitesOf } from "./suites.mjs";

describe("a test file's suites, from its first line", () => {
  it("reads the marks, and none where the first line names none", () => {
    expect(suitesOf("a.db.test.ts", "// @suite pooled moved-clock\nimport x;")).toEqual(["pooled", "moved-clock"]);
    expect(suitesOf("a.db.test.ts", "// @suite moved-clock")).toEqual(["moved-clock"]);
    expect(suitesOf("a.db.test.ts", "import x;\n// @suite pooled")).toEqual([]);
  });

  it("refuses a mark it does not know, naming the file and the suites there are", () => {
    expect(() => suitesOf("a.db.test.ts", "// @suite pooled movedclock\n")).toThrow(/a\.db\.test\.ts.*pooled, moved-clock/);
    expect(() => suitesOf("a.db.test.ts", "// @suite\n")).toThrow(/names no suite/);
  });

  it("finds this repository's marked files, database tests among them", () => {
    const pooled = filesMarked(process.cwd(), "pooled");
    expect(pooled).toContain("lib/platform/api/idempotency.db.test.ts");
    expect(pooled.every((f) => f.endsWith(".test.ts"))).toBe(true);
  });
});
