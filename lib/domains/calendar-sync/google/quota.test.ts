import { describe, expect, it } from "vitest";
import { backoffDelayMs, googleFailure, isQuotaFailure } from "./quota";
import { busyInterval } from "./busy-interval";
import { exportRetryDelaySeconds, googleEventIdFor } from "./export-event";

const gaxiosLike = (status: number, reason: string, domain = "usageLimits", headers: Record<string, string> = {}) => ({
  message: "x",
  response: { status, headers, data: { error: { errors: [{ domain, reason, message: reason }], code: status, message: `msg ${reason}` } } },
});

describe("Google quota errors", () => {
  it("treats 429 and 403 usage limits as quota, other 403s not", () => {
    expect(isQuotaFailure(googleFailure(gaxiosLike(403, "rateLimitExceeded")))).toBe(true);
    expect(isQuotaFailure(googleFailure(gaxiosLike(403, "userRateLimitExceeded")))).toBe(true);
    expect(isQuotaFailure(googleFailure(gaxiosLike(403, "somethingNew", "usageLimits")))).toBe(true);
    expect(isQuotaFailure(googleFailure(gaxiosLike(429, "rateLimitExceeded")))).toBe(true);
    expect(isQuotaFailure(googleFailure(gaxiosLike(403, "forbidden", "global")))).toBe(false);
    expect(isQuotaFailure(googleFailure(gaxiosLike(500, "backendError", "global")))).toBe(false);
    expect(isQuotaFailure(googleFailure(new Error("ECONNREFUSED")))).toBe(false);
  });

  it("reads status, reason, message and Retry-After", () => {
    expect(googleFailure(gaxiosLike(429, "rateLimitExceeded", "usageLimits", { "retry-after": "7" }))).toEqual({
      status: 429,
      reason: "rateLimitExceeded",
      message: "Google answered 429 rateLimitExceeded: msg rateLimitExceeded",
      retryAfterMs: 7000,
    });
    expect(googleFailure({ response: { status: 400, data: { error: "invalid_grant", error_description: "Token has been expired or revoked." } } })).toMatchObject({
      status: 400,
      reason: "invalid_grant",
      message: expect.stringContaining("Token has been expired or revoked."),
    });
  });

  it("backs off exponentially with jitter between half and all of the ceiling, capped at a minute", () => {
    expect(backoffDelayMs(0, 1000, () => 0)).toBe(500);
    expect(backoffDelayMs(0, 1000, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, 1000, () => 0.5)).toBe(6000);
    expect(backoffDelayMs(20, 1000, () => 1)).toBe(60_000);
    expect(exportRetryDelaySeconds(1, () => 0.5)).toBe(5);
    expect(exportRetryDelaySeconds(3, () => 0.5)).toBe(45);
    expect(exportRetryDelaySeconds(30, () => 0.5)).toBe(3600);
  });
});

describe("Google events as busy time", () => {
  it("imports timed and all-day events; skips free, cancelled, declined and AgentDraft's own", () => {
    expect(busyInterval({ start: { dateTime: "2026-01-01T10:00:00+01:00" }, end: { dateTime: "2026-01-01T11:00:00+01:00" } })).toEqual({
      start: new Date("2026-01-01T09:00:00Z"),
      end: new Date("2026-01-01T10:00:00Z"),
    });
    expect(busyInterval({ start: { date: "2026-01-02" }, end: { date: "2026-01-03" } })).toEqual({ start: new Date("2026-01-02T00:00:00Z"), end: new Date("2026-01-03T00:00:00Z") });
    // All-day events are the calendar's own day, across a DST change too.
    expect(busyInterval({ start: { date: "2026-01-02" }, end: { date: "2026-01-03" } }, "America/New_York")).toEqual({
      start: new Date("2026-01-02T05:00:00Z"),
      end: new Date("2026-01-03T05:00:00Z"),
    });
    expect(busyInterval({ start: { date: "2026-03-08" }, end: { date: "2026-03-09" } }, "America/New_York")).toEqual({
      start: new Date("2026-03-08T05:00:00Z"),
      end: new Date("2026-03-09T04:00:00Z"),
    });
    expect(busyInterval({ start: { date: "2026-07-01" }, end: { date: "2026-07-02" } }, "Asia/Kolkata")).toEqual({
      start: new Date("2026-06-30T18:30:00Z"),
      end: new Date("2026-07-01T18:30:00Z"),
    });
    expect(busyInterval({ start: { date: "2026-07-01" }, end: { date: "2026-07-02" } }, "Not/AZone")).toEqual({
      start: new Date("2026-07-01T00:00:00Z"),
      end: new Date("2026-07-02T00:00:00Z"),
    });
    const base = { start: { dateTime: "2026-01-01T10:00:00Z" }, end: { dateTime: "2026-01-01T11:00:00Z" } };
    expect(busyInterval({ ...base, transparency: "transparent" })).toBeNull();
    expect(busyInterval({ ...base, status: "cancelled" })).toBeNull();
    expect(busyInterval({ ...base, attendees: [{ email: "a@b.c", self: true, responseStatus: "declined" }] })).toBeNull();
    // Tagged as ours: skipped only when this link really exported it; a forged tag stays busy.
    expect(busyInterval({ ...base, id: "g1", extendedProperties: { private: { agentdraft_event_id: "evt_x" } } }, "UTC", new Set(["g1"]))).toBeNull();
    expect(busyInterval({ ...base, id: "g2", extendedProperties: { private: { agentdraft_event_id: "evt_x" } } }, "UTC", new Set(["g1"]))).not.toBeNull();
    expect(busyInterval({ start: { dateTime: "2026-01-01T11:00:00Z" }, end: { dateTime: "2026-01-01T11:00:00Z" } })).toBeNull();
  });

  it("derives a valid, stable Google event id (base32hex) from an AgentDraft event id", () => {
    const id = googleEventIdFor("evt_01h0000000000000000000000");
    expect(id).toMatch(/^[a-v0-9]{5,1024}$/);
    expect(googleEventIdFor("evt_01h0000000000000000000000")).toBe(id);
    expect(googleEventIdFor("evt_01h0000000000000000000001")).not.toBe(id);
  });
});
