import { describe, expect, it } from "vitest";
import { sameString } from "./same-string";

describe("sameString", () => {
  it("is true only for equal strings, and false (never a throw) when lengths in bytes differ", () => {
    expect(sameString("state-abc", "state-abc")).toBe(true);
    expect(sameString("state-abc", "state-abd")).toBe(false);
    expect(sameString("short", "longer")).toBe(false);
    // One character each, two bytes against one: a forged state must be refused, not crash the callback.
    expect(sameString("é", "e")).toBe(false);
    expect(sameString("", "")).toBe(true);
  });
});
