import { describe, expect, it } from "vitest";
import { attemptOutcome, grantsIn } from "./holds-scenario";

describe("attemptOutcome", () => {
  it("is the refusal's code when the placement is refused", () => {
    expect(attemptOutcome({ status: 409, code: "hold_conflict" })).toBe("hold_conflict");
    expect(attemptOutcome({ status: 502 })).toBe("502");
  });
  it("is a grant when placed, whether or not the commit or release after it went through", () => {
    expect(attemptOutcome({ status: 201 }, { status: 200 })).toBe("granted");
    expect(attemptOutcome({ status: 201 })).toBe("granted");
    expect(attemptOutcome({ status: 201 }, { status: 409, code: "hold_not_live" })).toBe("granted_then_hold_not_live");
    expect(attemptOutcome({ status: 201 }, { status: 500 })).toBe("granted_then_500");
  });
});

describe("grantsIn", () => {
  it("counts every grant and no refusal", () => {
    expect(grantsIn({ granted: 40, granted_then_hold_not_live: 2, hold_conflict: 100, "error:timeout": 1 })).toBe(42);
    expect(grantsIn({ hold_conflict: 3 })).toBe(0);
  });
});
