import type { CalendarEventRow, CalendarRow, EventReconciliationRow } from "../../../db/schema";

export const serializeCalendar = (c: CalendarRow) => ({
  id: c.id,
  object: "calendar" as const,
  name: c.name,
  description: c.description,
  timezone: c.timezone,
  created_at: c.createdAt.toISOString(),
});

/**
 * An event's reconciliation after commit (issue #32): the state a person's change in Google
 * Calendar or Outlook put it in, the provider's version beside AgentDraft's (which stays on the
 * event), what changed, and what now overlaps it.
 */
export function reconciliationJson(event: CalendarEventRow, r: EventReconciliationRow) {
  return {
    state: r.state,
    provider: r.provider,
    link_id: r.linkId,
    provider_event_id: r.providerEventId,
    changed: r.changed,
    agentdraft: { start_time: event.startTime.toISOString(), end_time: event.endTime.toISOString(), status: event.status },
    provider_version: {
      status: r.providerStatus,
      start_time: r.providerStart?.toISOString() ?? null,
      end_time: r.providerEnd?.toISOString() ?? null,
      updated_at: r.providerUpdatedAt?.toISOString() ?? null,
      changed_by: r.providerChangedBy,
    },
    conflicts: r.conflicts,
    detected_at: r.detectedAt.toISOString(),
  };
}

/** An event; with `reconciliation` (null: none) when the caller read it (listings). */
export const serializeCalendarEvent = (e: CalendarEventRow, reconciliation?: EventReconciliationRow | null) => ({
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
  ...(reconciliation === undefined ? {} : { reconciliation: reconciliation ? reconciliationJson(e, reconciliation) : null }),
});
