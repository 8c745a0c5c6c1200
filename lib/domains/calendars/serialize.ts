import type { CalendarEventRow, CalendarRow } from "../../../db/schema";

export const serializeCalendar = (c: CalendarRow) => ({
  id: c.id,
  object: "calendar" as const,
  name: c.name,
  description: c.description,
  timezone: c.timezone,
  created_at: c.createdAt.toISOString(),
});

export const serializeCalendarEvent = (e: CalendarEventRow) => ({
  id: e.id,
  object: "event" as const,
  calendar_id: e.calendarId,
  hold_id: e.holdId,
  agent_id: e.agentId,
  start_time: e.startTime.toISOString(),
  end_time: e.endTime.toISOString(),
  status: e.status,
  metadata: e.metadata,
  created_at: e.createdAt.toISOString(),
  cancelled_at: e.cancelledAt?.toISOString() ?? null,
});
