-- agentdraft_cancel_event: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0021_cancel_and_expire_functions, 0044_engine_generic_plans.
--
-- Cancels a committed event, freeing its time (its Google copy is queued for removal).
-- Returns {event, exports, deliveries, changed} or {error: {code}} and changes nothing.
-- (0021_cancel_and_expire_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_cancel_event(p_actor jsonb, p_event_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_peek calendar_events;
  e calendar_events;
  v_exports jsonb;
  v_emitted jsonb;
BEGIN
  SELECT * INTO v_peek FROM calendar_events WHERE id = p_event_id AND workspace_id = v_ws;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found')); END IF;
  IF p_actor->>'type' = 'key' AND v_key_agent IS NOT NULL AND v_peek.agent_id IS DISTINCT FROM v_key_agent THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'forbidden'));
  END IF;
  PERFORM 1 FROM calendars WHERE id = v_peek.calendar_id FOR UPDATE;
  SELECT * INTO e FROM calendar_events WHERE id = p_event_id FOR UPDATE;
  IF e.status = 'cancelled' THEN
    RETURN jsonb_build_object('event', to_jsonb(e), 'exports', '[]'::jsonb, 'deliveries', '[]'::jsonb, 'changed', false);
  END IF;
  UPDATE calendar_events SET status = 'cancelled', cancelled_at = clock_timestamp() WHERE id = e.id RETURNING * INTO e;
  WITH x AS (
    UPDATE google_event_exports SET desired = 'absent', status = 'pending', attempts = 0, next_attempt_at = now(), last_error = NULL, updated_at = now()
    WHERE calendar_event_id = e.id RETURNING id, workspace_id, link_id, next_attempt_at
  ) SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]') INTO v_exports FROM x;
  v_emitted := agentdraft_emit(v_ws, 'event.cancelled', e.agent_id, jsonb_build_object('event', agentdraft_event_json(e)), p_actor->>'trace_id');
  PERFORM agentdraft_audit(p_actor, e.agent_id, 'event.cancelled', 'event', e.id, jsonb_build_object('calendar_id', e.calendar_id));
  RETURN jsonb_build_object('event', to_jsonb(e), 'exports', v_exports, 'deliveries', v_emitted->'deliveries', 'changed', true);
END $function$;
