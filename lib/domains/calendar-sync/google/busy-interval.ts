import type { calendar_v3 } from "@googleapis/calendar";
import type { RemoteVersion } from "../provider";

/** The private extended property that marks an event AgentDraft exported (never imported back). */
export const EXPORT_EVENT_PROPERTY = "agentdraft_event_id";
export const EXPORT_HOLD_PROPERTY = "agentdraft_hold_id";
/**
 * The mark every exported copy also carries, with one value for all of them: Google filters
 * events.list by a private property's exact value only (`privateExtendedProperty=name=value`),
 * so this is what lists every copy of ours at once, wherever it lies (the drift check's orphans).
 */
export const EXPORT_MARK_PROPERTY = "agentdraft_export";
export const EXPORT_MARK_VALUE = "1";

/**
 * The busy time a Google event stands for, or null when it makes nobody busy: cancelled,
 * marked "free" (transparent), declined by the calendar's owner, or exported by this link
 * itself (that time is already a committed event here). `ownExports` holds the Google event ids
 * this link exported: the private property alone proves nothing, since anyone who can write to
 * the Google calendar can set it to hide real busy time. All-day events are busy from midnight
 * to midnight of their dates in the Google calendar's time zone (`timeZone`, as events.list
 * reports it).
 */
export function busyInterval(ev: calendar_v3.Schema$Event, timeZone = "UTC", ownExports: ReadonlySet<string> = new Set()): { start: Date; end: Date } | null {
  if (ev.status === "cancelled" || ev.transparency === "transparent") return null;
  if (ev.id && ownExports.has(ev.id) && ev.extendedProperties?.private?.[EXPORT_EVENT_PROPERTY]) return null;
  if (ev.attendees?.some((a) => a.self && a.responseStatus === "declined")) return null;
  const at = (t: calendar_v3.Schema$EventDateTime | undefined) =>
    t?.dateTime ? new Date(t.dateTime) : t?.date ? zonedMidnight(t.date, t.timeZone ?? timeZone) : null;
  const start = at(ev.start);
  const end = at(ev.end);
  if (!start || !end || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end <= start) return null;
  return { start, end };
}

/**
 * What Google says of an event itself (for one AgentDraft exported): cancelled (deleted), declined
 * by every attendee but the calendar's owner and the organizer, or there at its times; when it
 * last changed (`updated`) and the organizer / creator it names.
 */
export function remoteVersion(ev: calendar_v3.Schema$Event, timeZone = "UTC"): RemoteVersion {
  const at = (t: calendar_v3.Schema$EventDateTime | undefined) =>
    t?.dateTime ? new Date(t.dateTime) : t?.date ? zonedMidnight(t.date, t.timeZone ?? timeZone) : null;
  const others = (ev.attendees ?? []).filter((a) => !a.self && !a.organizer && !a.resource);
  const declined = others.length > 0 && others.every((a) => a.responseStatus === "declined");
  const updated = ev.updated ? new Date(ev.updated) : null;
  return {
    status: ev.status === "cancelled" ? "cancelled" : declined ? "declined" : "confirmed",
    start: ev.status === "cancelled" ? null : at(ev.start),
    end: ev.status === "cancelled" ? null : at(ev.end),
    updatedAt: updated && !Number.isNaN(updated.getTime()) ? updated : null,
    changedBy: ev.organizer?.email ?? ev.creator?.email ?? null,
  };
}

/** The instant a date (YYYY-MM-DD) begins in an IANA time zone; UTC for a zone Node does not know. */
export function zonedMidnight(date: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const utc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  } catch {
    return new Date(utc);
  }
  // The zone's offset at an instant: its wall clock read as if it were UTC, minus the instant.
  const offset = (at: number) => {
    const p = Object.fromEntries(format.formatToParts(at).map((x) => [x.type, x.value]));
    return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) - at;
  };
  let at = utc - offset(utc);
  at = utc - offset(at); // again, in case midnight sits across a DST change from the first guess
  return new Date(at);
}
