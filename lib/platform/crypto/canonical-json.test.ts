import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";

describe("canonicalJson", () => {
  it("sorts keys, drops undefined members, keeps array holes as null, encodes dates as ISO strings", () => {
    expect(canonicalJson({ b: 1, a: [true, null, undefined, "x"], c: undefined, d: { z: 0, y: new Date("2025-01-01T00:00:00Z") } })).toBe('{"a":[true,null,null,"x"],"b":1,"d":{"y":"2025-01-01T00:00:00.000Z","z":0}}');
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
    expect(canonicalJson("é\n")).toBe(JSON.stringify("é\n"));
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/non-finite/);
  });

  it("is the same string for the same value whatever the key order", () => {
    expect(canonicalJson({ x: { b: [1, { d: 1, c: 2 }], a: "s" } })).toBe(canonicalJson({ x: { a: "s", b: [1, { c: 2, d: 1 }] } }));
  });

  it("encodes values nested 200,000 deep without overflowing the stack", () => {
    let arrays: unknown = 1;
    let objects: unknown = 1;
    for (let i = 0; i < 200_000; i++) {
      arrays = [arrays];
      objects = { k: objects };
    }
    expect(canonicalJson(arrays)).toBe(`${"[".repeat(200_000)}1${"]".repeat(200_000)}`);
    expect(canonicalJson(objects)).toBe(`${'{"k":'.repeat(200_000)}1${"}".repeat(200_000)}`);
  });
});
