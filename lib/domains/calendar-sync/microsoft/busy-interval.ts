import { ianaZone, zonedInstant } from "./time-zones";
import type { RemoteVersion } from "../provider";

/** The fields of a Graph event (or a delta entry) that decide busy time. */
export type GraphEvent = {
  id: string;
  "@removed"?: { reason?: string };
  isCancelled?: boolean;
  isAllDay?: boolean;
  showAs?: "free" | "tentative" | "busy" | "oof" | "workingElsewhere" | "unknown";
  responseStatus?: { response?: string };
  start?: { dateTime?: string; timeZone?: string };
  end?: { dateTime?: string; timeZone?: string };
  originalStartTimeZone?: string;
  type?: "singleInstance" | "occurrence" | "exception" | "seriesMaster";
  lastModifiedDateTime?: string;
  organizer?: { emailAddress?: { address?: string } };
  attendees?: { type?: string; emailAddress?: { address?: string }; status?: { response?: string } }[];
};

/** Shown as busy: everything but free (tentative, out of office and working elsewhere all keep a person from a booking; unknown counts as busy). */
export const BUSY_SHOW_AS = new Set(["busy", "tentative", "oof", "workingElsewhere", "unknown"]);

/**
 * The busy time an Outlook event stands for, or null when it makes nobody busy: removed,
 * cancelled, shown as free, declined by the calendar's owner, or a series master (calendarView
 * lists each occurrence itself). Timed events carry their zone (AgentDraft asks Graph for UTC);
 * all-day events are busy from midnight to midnight of their dates in the calendar's time zone
 * (`calendarZone`, the mailbox's, a Windows or IANA name), else the event's own.
 */
export function graphBusyInterval(ev: GraphEvent, calendarZone: string | null = null): { start: Date; end: Date } | null {
  if (ev["@removed"] || ev.isCancelled || ev.type === "seriesMaster") return null;
  if (!BUSY_SHOW_AS.has(ev.showAs ?? "busy")) return null;
  if (ev.responseStatus?.response === "declined") return null;
  const at = (t: GraphEvent["start"]) => {
    if (!t?.dateTime) return null;
    if (ev.isAllDay) return zonedInstant(t.dateTime.slice(0, 10), ianaZone(calendarZone ?? ev.originalStartTimeZone));
    return zonedInstant(t.dateTime.replace(/Z$/, ""), ianaZone(t.timeZone ?? "UTC"));
  };
  const start = at(ev.start);
  const end = at(ev.end);
  if (!start || !end || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end <= start) return null;
  return { start, end };
}

/**
 * What Graph says of an event itself (for one AgentDraft exported): removed or cancelled, declined
 * by every attendee (resources aside), or there at its times; when it last changed
 * (`lastModifiedDateTime`) and the organizer it names.
 */
export function graphRemoteVersion(ev: GraphEvent, calendarZone: string | null = null): RemoteVersion {
  const gone = Boolean(ev["@removed"] || ev.isCancelled);
  const others = (ev.attendees ?? []).filter((a) => a.type !== "resource");
  const declined = others.length > 0 && others.every((a) => a.status?.response === "declined");
  const at = (t: GraphEvent["start"]) => {
    if (!t?.dateTime) return null;
    if (ev.isAllDay) return zonedInstant(t.dateTime.slice(0, 10), ianaZone(calendarZone ?? ev.originalStartTimeZone));
    return zonedInstant(t.dateTime.replace(/Z$/, ""), ianaZone(t.timeZone ?? "UTC"));
  };
  const updated = ev.lastModifiedDateTime ? new Date(ev.lastModifiedDateTime) : null;
  return {
    status: gone ? "cancelled" : declined ? "declined" : "confirmed",
    start: gone ? null : at(ev.start),
    end: gone ? null : at(ev.end),
    updatedAt: updated && !Number.isNaN(updated.getTime()) ? updated : null,
    changedBy: ev.organizer?.emailAddress?.address ?? null,
  };
}
