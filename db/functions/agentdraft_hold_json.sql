-- agentdraft_hold_json: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0035_coordination_functions, 0038_json_helpers_cached_plans.
--
-- The row-to-JSON helpers that read the clock (a hold, lease or claim past its expiry answers
-- "expired") cannot be inlined by the planner: as SQL functions, PostgreSQL parsed and planned
-- their body again on every call (0.26 ms of a place or commit's ~1 ms in the database). As
-- plpgsql they are planned once per connection. Same bodies, same answers.
-- (0038_json_helpers_cached_plans.sql)
CREATE OR REPLACE FUNCTION agentdraft_hold_json(h holds, p_event_ids text[] DEFAULT '{}'::text[])
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN jsonb_build_object(
    'id', h.id, 'object', 'hold', 'calendar_ids', to_jsonb(h.calendar_ids), 'agent_id', h.agent_id,
    'start_time', agentdraft_iso(h.start_time), 'end_time', agentdraft_iso(h.end_time), 'priority', h.priority,
    'status', CASE WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN 'expired' ELSE h.status END,
    'hold_ttl_seconds', h.ttl_seconds, 'expires_at', agentdraft_iso(h.expires_at), 'metadata', h.metadata,
    'preempted_by', CASE WHEN h.preempted_by IS NULL THEN NULL ELSE jsonb_build_object('hold_id', h.preempted_by, 'priority', coalesce(h.preempted_by_priority, 0)) END,
    'approval_id', h.approval_id, 'rebooks_event_id', h.rebooks_event_id,
    'event_ids', to_jsonb(p_event_ids), 'created_at', agentdraft_iso(h.created_at),
    'ended_at', CASE WHEN h.ended_at IS NOT NULL THEN agentdraft_iso(h.ended_at)
                     WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN agentdraft_iso(h.expires_at) END);
END
$function$;
