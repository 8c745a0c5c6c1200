import { describe, expect, it } from "vitest";
import { ID_SHAPE, jsonProblems, queryProblems, storableText, textProblem } from "./input-guards";
import { newId } from "../ids";

describe("input guards", () => {
  it("refuses NUL and unpaired surrogates, accepts paired ones", () => {
    expect(textProblem("a\u0000b")).toMatch(/NUL/);
    expect(textProblem("\ud800")).toMatch(/surrogate/);
    expect(textProblem("x\udc00")).toMatch(/surrogate/);
    expect(textProblem("😀 ok")).toBeNull();
    expect(textProblem("abc", 2)).toMatch(/at most 2/);
  });

  it("names each bad field of a JSON body with zod-like paths", () => {
    const errors = jsonProblems({ summary: "ok", evidence: { items: ["fine", "bad\u0000"] }, meta: { "\ud800": 1 } });
    expect(errors).toEqual([
      { field: "evidence.items.1", message: expect.stringMatching(/NUL/) },
      { field: "meta", message: expect.stringMatching(/key that must not contain unpaired/) },
    ]);
  });

  it("bounds nesting without recursing (a 1,000,000-deep value is one error, no stack overflow)", () => {
    const deep = JSON.parse("[".repeat(1_000_000) + "]".repeat(1_000_000));
    expect(jsonProblems({ evidence: deep })).toEqual([{ field: expect.stringMatching(/^evidence(\.0)+$/), message: expect.stringMatching(/32 levels/) }]);
    let ok: unknown = 1;
    for (let i = 0; i < 31; i++) ok = [ok];
    expect(jsonProblems(ok)).toEqual([]);
  });

  it("checks query values and their names", () => {
    expect(queryProblems({ starting_after: "\u0000", ok: "x" })).toEqual([{ field: "starting_after", message: expect.stringMatching(/NUL/) }]);
    expect(queryProblems({ q: ["a", "b".repeat(2000)] })).toEqual([{ field: "q", message: expect.stringMatching(/at most/) }]);
  });

  it("knows the shape of our ids", () => {
    expect(ID_SHAPE.test(newId("calendar"))).toBe(true);
    expect(ID_SHAPE.test(newId("googleConnection"))).toBe(true);
    expect(ID_SHAPE.test("cal_nope")).toBe(false);
    expect(ID_SHAPE.test("cal_\u000000000000000000000000000")).toBe(false);
  });

  it("makes outside text storable instead of refusing it", () => {
    expect(storableText("a\u0000b\ud800c")).toBe("a\ufffdb\ufffdc");
    expect(storableText("plain")).toBe("plain");
  });
});
