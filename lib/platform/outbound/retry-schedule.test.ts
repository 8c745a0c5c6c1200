import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, parseRetryAfter, retryDelayMs } from "./retry-schedule";

describe("retry schedule", () => {
  it("waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up after 8 attempts", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, mid))).toEqual([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(retryDelayMs(8, mid)).toBeNull();
    expect(MAX_ATTEMPTS).toBe(8);
  });

  it("jitters by at most 10 % either way", () => {
    expect(retryDelayMs(2, () => 0)).toBe(270_000);
    expect(retryDelayMs(2, () => 1)).toBe(330_000);
  });

  it("reads Retry-After as seconds or an HTTP date, within 1 s to 24 h", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:10:00 GMT", now)).toBe(600_000);
    expect(parseRetryAfter("0", now)).toBe(1000);
    expect(parseRetryAfter("999999", now)).toBe(86_400_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
