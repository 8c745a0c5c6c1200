-- agentdraft_fan_out: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0027_one_statement_door.
--
-- Fan-out, defined once: one delivery per matching enabled endpoint of an event, each id made
-- from the event's time and md5(event, endpoint) (so fanning out twice adds nothing). Returns
-- the deliveries made, for the application to announce after commit.
-- (0020_conflict_engine_functions.sql; plpgsql since 0027, planned once per connection)
CREATE OR REPLACE FUNCTION agentdraft_fan_out(ev webhook_events)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_out jsonb;
BEGIN
  WITH d AS (
    INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at)
    SELECT 'whd_' || substr(ev.id, 5, 10) || substr(md5(ev.id || e.id), 1, 16), ev.workspace_id, e.id, ev.id, ev.type, ev.created_at
    FROM webhook_endpoints e
    WHERE e.workspace_id = ev.workspace_id AND e.enabled
      AND (e.event_types IS NULL OR ev.type = ANY(e.event_types))
      AND (e.agent_ids IS NULL OR (ev.agent_id IS NOT NULL AND ev.agent_id = ANY(e.agent_ids)))
    ON CONFLICT DO NOTHING
    RETURNING id, endpoint_id, next_attempt_at
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'endpoint_id', d.endpoint_id, 'due_at', d.next_attempt_at)), '[]'::jsonb) INTO v_out FROM d;
  RETURN v_out;
END $function$;
