-- agentdraft_audit: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0027_one_statement_door.
--
-- One audit entry, unsealed (the sealer chains it in commit order).
-- (0020_conflict_engine_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_audit(p_actor jsonb, p_agent text, p_action text, p_resource_type text, p_resource_id text, p_summary jsonb, p_outcome text DEFAULT 'succeeded'::text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO audit_entries (id, workspace_id, at, actor_type, actor_id, agent_id, action, resource_type, resource_id, trace_id, request_id, summary, outcome)
  VALUES (agentdraft_new_id('aud'), p_actor->>'workspace_id', date_trunc('milliseconds', clock_timestamp()), p_actor->>'type', p_actor->>'id', p_agent,
          p_action, p_resource_type, p_resource_id, p_actor->>'trace_id', p_actor->>'request_id', coalesce(p_summary, '{}'::jsonb), p_outcome);
END $function$;
