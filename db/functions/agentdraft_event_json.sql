-- agentdraft_event_json: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0021_cancel_and_expire_functions.
--
-- An event as the API serializes it (lib/domains/calendars/serialize.ts serializeCalendarEvent; a test keeps them equal).
-- (0021_cancel_and_expire_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_event_json(e calendar_events)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object(
    'id', e.id, 'object', 'event', 'calendar_id', e.calendar_id, 'hold_id', e.hold_id, 'agent_id', e.agent_id,
    'start_time', agentdraft_iso(e.start_time), 'end_time', agentdraft_iso(e.end_time), 'status', e.status,
    'metadata', e.metadata, 'created_at', agentdraft_iso(e.created_at),
    'cancelled_at', CASE WHEN e.cancelled_at IS NULL THEN NULL ELSE agentdraft_iso(e.cancelled_at) END)
$function$;
