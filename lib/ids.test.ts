import { describe, expect, it } from "vitest";
import { isId, newId } from "./ids";

describe("newId", () => {
  it("has the type prefix and 26 Crockford base32 characters", () => {
    const id = newId("agent");
    expect(id).toMatch(/^agent_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(isId("agent", id)).toBe(true);
    expect(isId("workspace", id)).toBe(false);
  });

  it("sorts by creation time", () => {
    const ids = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000].map((t) => newId("apiKey", t));
    expect([...ids].sort()).toEqual(ids);
  });

  it("stays ordered within one millisecond", () => {
    const now = Date.now() + 10_000;
    const ids = Array.from({ length: 1000 }, () => newId("agent", now));
    expect([...ids].sort()).toEqual(ids);
  });

  it("does not repeat", () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newId("member", now)));
    expect(ids.size).toBe(10_000);
  });
});
