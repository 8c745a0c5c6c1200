-- agentdraft_handoff_dead_events: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- handoff.dead goes to both ends: one event per distinct agent. Returns the deliveries.
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_handoff_dead_events(h handoffs)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_out jsonb := '[]'::jsonb;
  v_agent text;
BEGIN
  FOREACH v_agent IN ARRAY (SELECT array_agg(DISTINCT a) FROM unnest(ARRAY[h.from_agent_id, h.to_agent_id]) AS a) LOOP
    v_out := v_out || (agentdraft_emit(h.workspace_id, 'handoff.dead', v_agent, jsonb_build_object('handoff', agentdraft_handoff_json(h)), h.trace_id)->'deliveries');
  END LOOP;
  RETURN v_out;
END $function$;
