import { describe, expect, it } from "vitest";
import { graphBusyInterval } from "./busy-interval";
import { ianaZone, zonedInstant } from "./time-zones";

const ev = (over: Record<string, unknown>) => ({ id: "e1", start: { dateTime: "2026-07-01T09:00:00.0000000", timeZone: "UTC" }, end: { dateTime: "2026-07-01T10:00:00.0000000", timeZone: "UTC" }, ...over });

describe("Outlook busy time", () => {
  it("maps showAs: busy, tentative, oof and workingElsewhere are busy; free is not", () => {
    for (const showAs of ["busy", "tentative", "oof", "workingElsewhere"]) expect(graphBusyInterval(ev({ showAs }))).not.toBeNull();
    expect(graphBusyInterval(ev({ showAs: "free" }))).toBeNull();
    expect(graphBusyInterval(ev({ isCancelled: true }))).toBeNull();
    expect(graphBusyInterval(ev({ "@removed": { reason: "deleted" } }))).toBeNull();
    expect(graphBusyInterval(ev({ responseStatus: { response: "declined" } }))).toBeNull();
    expect(graphBusyInterval(ev({ type: "seriesMaster" }))).toBeNull();
    expect(graphBusyInterval(ev({}))).toEqual({ start: new Date("2026-07-01T09:00:00Z"), end: new Date("2026-07-01T10:00:00Z") });
  });

  it("reads a timed event in its own zone, an all-day event in the calendar's (Windows names mapped to IANA)", () => {
    expect(graphBusyInterval(ev({ start: { dateTime: "2026-07-01T09:00:00", timeZone: "W. Europe Standard Time" }, end: { dateTime: "2026-07-01T10:00:00", timeZone: "W. Europe Standard Time" } }))).toEqual({
      start: new Date("2026-07-01T07:00:00Z"),
      end: new Date("2026-07-01T08:00:00Z"),
    });
    const allDay = ev({ isAllDay: true, start: { dateTime: "2026-01-10T00:00:00.0000000", timeZone: "UTC" }, end: { dateTime: "2026-01-11T00:00:00.0000000", timeZone: "UTC" }, originalStartTimeZone: "Tokyo Standard Time" });
    expect(graphBusyInterval(allDay, "Eastern Standard Time")).toEqual({ start: new Date("2026-01-10T05:00:00Z"), end: new Date("2026-01-11T05:00:00Z") });
    expect(graphBusyInterval(allDay, null)).toEqual({ start: new Date("2026-01-09T15:00:00Z"), end: new Date("2026-01-10T15:00:00Z") });
  });

  it("maps common Windows zones, passes IANA names through, and falls back to UTC", () => {
    expect(ianaZone("Pacific Standard Time")).toBe("America/Los_Angeles");
    expect(ianaZone("India Standard Time")).toBe("Asia/Calcutta");
    expect(ianaZone("Europe/Paris")).toBe("Europe/Paris");
    expect(ianaZone("Not A Zone Standard Time")).toBe("UTC");
    expect(ianaZone(null)).toBe("UTC");
    // Across a DST change: 2026-03-29 is the European spring-forward day.
    expect(zonedInstant("2026-03-29T12:00:00", "Europe/Berlin")).toEqual(new Date("2026-03-29T10:00:00Z"));
    expect(zonedInstant("2026-03-28T12:00:00", "Europe/Berlin")).toEqual(new Date("2026-03-28T11:00:00Z"));
  });
});
