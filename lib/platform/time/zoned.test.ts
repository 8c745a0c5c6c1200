import { describe, expect, it } from "vitest";
import { addDays, isTimeZone, offsetMs, startOfZonedDay, weekdayIndex, zoneName, zonedClock, zonedDateTime, zonedDay } from "./zoned";

describe("times in a zone", () => {
  const at = new Date("2026-12-01T23:30:00Z");
  it("formats an instant in the zone", () => {
    expect(zonedDateTime(at, "UTC")).toBe("2026-12-01 23:30");
    expect(zonedDateTime(at, "Europe/Berlin")).toBe("2026-12-02 00:30");
    expect(zonedDay(at, "America/Los_Angeles")).toBe("2026-12-01");
    expect(zonedClock(at, "Asia/Kolkata")).toBe("05:00");
    expect(zoneName(at, "Europe/Berlin")).toBe("GMT+1");
    expect(offsetMs(at, "Asia/Kolkata")).toBe(5.5 * 3_600_000);
  });
  it("finds local midnight, across daylight-saving changes", () => {
    expect(startOfZonedDay("2026-12-02", "Europe/Berlin").toISOString()).toBe("2026-12-01T23:00:00.000Z");
    expect(startOfZonedDay("2026-03-29", "Europe/Berlin").toISOString()).toBe("2026-03-28T23:00:00.000Z"); // a 23-hour day
    expect(startOfZonedDay("2026-03-30", "Europe/Berlin").toISOString()).toBe("2026-03-29T22:00:00.000Z");
    expect(startOfZonedDay("2026-11-01", "America/New_York").toISOString()).toBe("2026-11-01T04:00:00.000Z"); // a 25-hour day
    expect(startOfZonedDay("2026-11-02", "America/New_York").toISOString()).toBe("2026-11-02T05:00:00.000Z");
  });
  it("counts calendar days and weekdays, and knows a zone from junk", () => {
    expect(addDays("2025-12-31", 1)).toBe("2026-01-01");
    expect(weekdayIndex("2026-11-30")).toBe(0); // a Monday
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});
