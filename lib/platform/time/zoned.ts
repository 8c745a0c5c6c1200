// Times in a named IANA zone, with Intl only (no library): formatting, and local midnights
// for a calendar's day columns.

// Building an Intl.DateTimeFormat costs about as much as the rest of a request (ICU loads the
// zone's rules), so a zone found valid once is remembered. Only valid names are kept: the set is
// bounded by the IANA database (about 600 names and their aliases), whatever callers send.
const knownZones = new Set<string>();

export function isTimeZone(tz: string): boolean {
  if (knownZones.has(tz)) return true;
  if (!tz || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
  } catch {
    return false;
  }
  knownZones.add(tz);
  return true;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function parts(date: Date, tz: string) {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    formatters.set(tz, f);
  }
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(date)) out[p.type] = p.value;
  return { year: Number(out.year), month: Number(out.month), day: Number(out.day), hour: Number(out.hour) % 24, minute: Number(out.minute), second: Number(out.second) };
}

/** The zone's offset from UTC at that instant, in milliseconds. */
export function offsetMs(date: Date, tz: string): number {
  const p = parts(date, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(date.getTime() / 1000) * 1000;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** `2026-12-01` in the zone. */
export const zonedDay = (date: Date, tz: string) => {
  const p = parts(date, tz);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
};

/** `14:05` in the zone. */
export const zonedClock = (date: Date, tz: string) => {
  const p = parts(date, tz);
  return `${pad(p.hour)}:${pad(p.minute)}`;
};

/** `2026-12-01 14:05` in the zone. */
export const zonedDateTime = (date: Date, tz: string) => `${zonedDay(date, tz)} ${zonedClock(date, tz)}`;

/** The zone's short name at that instant: `CET`, `GMT+5:30`, `UTC`. */
export function zoneName(date: Date, tz: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: "short" }).formatToParts(date).find((p) => p.type === "timeZoneName")?.value;
  return name ?? tz;
}

/** The instant of local midnight starting `2026-12-01` in the zone (the first instant of that day there). */
export function startOfZonedDay(day: string, tz: string): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - offsetMs(new Date(guess), tz);
  // Once more, for a day whose offset changes between the guess and the answer.
  t = guess - offsetMs(new Date(t), tz);
  return new Date(t);
}

/** `2026-12-01` plus n days (calendar days, not 24-hour spans). */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** 0 = Monday ... 6 = Sunday, of a `YYYY-MM-DD` day. */
export function weekdayIndex(day: string): number {
  return (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** Every IANA zone this runtime knows, UTC first. */
export function allTimeZones(): string[] {
  const zones = Intl.supportedValuesOf("timeZone");
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
}
