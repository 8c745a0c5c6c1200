import type { calendar_v3 } from "googleapis";

/** The private extended property that marks an event AgentDraft exported (never imported back). */
export const EXPORT_EVENT_PROPERTY = "agentdraft_event_id";
export const EXPORT_HOLD_PROPERTY = "agentdraft_hold_id";

/**
 * The busy time a Google event stands for, or null when it makes nobody busy: cancelled,
 * marked "free" (transparent), declined by the calendar's owner, or exported by AgentDraft
 * itself (that time is already a committed event here). All-day events are busy from 00:00
 * to 00:00 UTC of their dates.
 */
export function busyInterval(ev: calendar_v3.Schema$Event): { start: Date; end: Date } | null {
  if (ev.status === "cancelled" || ev.transparency === "transparent") return null;
  if (ev.extendedProperties?.private?.[EXPORT_EVENT_PROPERTY]) return null;
  if (ev.attendees?.some((a) => a.self && a.responseStatus === "declined")) return null;
  const at = (t: calendar_v3.Schema$EventDateTime | undefined) =>
    t?.dateTime ? new Date(t.dateTime) : t?.date ? new Date(`${t.date}T00:00:00Z`) : null;
  const start = at(ev.start);
  const end = at(ev.end);
  if (!start || !end || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end <= start) return null;
  return { start, end };
}
