-- agentdraft_emit: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions.
--
-- The transactional outbox (SPEC §6): the event and its deliveries, in the caller's transaction.
-- (0020_conflict_engine_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_emit(p_workspace text, p_type text, p_agent text, p_data jsonb, p_trace text, p_id text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ev webhook_events;
BEGIN
  INSERT INTO webhook_events (id, workspace_id, type, agent_id, data, trace_id, fanned_out_at)
  VALUES (coalesce(p_id, agentdraft_new_id('whm')), p_workspace, p_type, p_agent, p_data, p_trace, now())
  RETURNING * INTO v_ev;
  RETURN jsonb_build_object('event', to_jsonb(v_ev), 'deliveries', agentdraft_fan_out(v_ev));
END $function$;
