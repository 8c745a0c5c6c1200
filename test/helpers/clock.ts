// Dates for tests, from the test's clock (Date.now(), which libfaketime or vi.setSystemTime may
// move): never a fixed year, so a test means the same on whatever day it runs. Each takes `now`
// for a test that sets its own clock.

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** `n` days (fractions allowed, negative for the past) from now. */
export const daysFromNow = (n: number, now = Date.now()): Date => new Date(now + n * DAY_MS);

/** Midnight UTC beginning the day `days` days after today (UTC): 0 is today's, 1 the next. */
export const utcMidnight = (days = 0, now = Date.now()): Date => new Date((Math.floor(now / DAY_MS) + days) * DAY_MS);

/** The next midnight UTC. */
export const nextUtcMidnight = (now = Date.now()): Date => utcMidnight(1, now);

/**
 * Times of one UTC day `days` days after today: `T(9)` is 09:00Z, `T(9, 30)` 09:30Z, `T(26)` 02:00Z
 * the day after, as ISO strings. The day is fixed when `onUtcDay` is called, so a file that crosses
 * midnight while it runs keeps one day.
 */
export function onUtcDay(days: number, now = Date.now()): (hours: number, minutes?: number) => string {
  const base = utcMidnight(days, now).getTime();
  return (hours, minutes = 0) => new Date(base + hours * HOUR_MS + minutes * MINUTE_MS).toISOString();
}

/** `"HH:MM"` UTC on the day `days` days after today (UTC), as an ISO string. */
export function atUtc(days: number, time: string, now = Date.now()): string {
  const [h, m] = time.split(":").map(Number);
  return onUtcDay(days, now)(h!, m);
}

/** The date (YYYY-MM-DD) of midnight UTC `days` days after today. */
export const utcDate = (days: number, now = Date.now()): string => utcMidnight(days, now).toISOString().slice(0, 10);

/** Midnight UTC of the first `weekday` (0 Sunday … 6 Saturday) at least `minDays` days after today (UTC). */
export function nextUtcWeekday(weekday: number, minDays = 1, now = Date.now()): Date {
  const from = utcMidnight(minDays, now);
  return utcMidnight(minDays + ((weekday - from.getUTCDay() + 7) % 7), now);
}

/** `zone`'s offset from UTC at an instant, as Intl names it: "GMT+01:00", "GMT-05:00", "GMT" for none. */
export const zoneOffset = (zone: string, at: number | string | Date): string =>
  new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(new Date(at)).find((p) => p.type === "timeZoneName")!.value;

/** The first instant after `from` (to the minute) at which `zone`'s offset from UTC changes (a daylight-saving change). */
export function nextOffsetChange(zone: string, from = Date.now()): Date {
  let t = from - (from % HOUR_MS);
  const first = zoneOffset(zone, t);
  for (let i = 0; i < 24 * 400; i++, t += HOUR_MS) {
    if (zoneOffset(zone, t + HOUR_MS) === first) continue;
    let lo = t;
    let hi = t + HOUR_MS;
    while (hi - lo > MINUTE_MS) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
      if (zoneOffset(zone, mid) === first) lo = mid;
      else hi = mid;
    }
    return new Date(hi);
  }
  throw new Error(`${zone} changes no offset in the 400 days after ${new Date(from).toISOString()}`);
}
