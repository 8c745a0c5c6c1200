-- agentdraft_handoff_worker_check: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- Who may work on a handoff: the recipient agent's keys or a workspace-wide key. To another
-- agent-bound key it does not exist, to the sender's it is forbidden. Returns an error code or null.
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_handoff_worker_check(p_actor jsonb, p_id text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_key_agent text := p_actor->>'agent_id';
  p handoffs;
BEGIN
  SELECT * INTO p FROM handoffs WHERE id = p_id AND workspace_id = p_actor->>'workspace_id';
  IF NOT FOUND THEN RETURN 'not_found'; END IF;
  IF v_key_agent IS NULL OR v_key_agent = p.to_agent_id THEN RETURN NULL; END IF;
  IF v_key_agent = p.from_agent_id THEN RETURN 'forbidden'; END IF;
  RETURN 'not_found';
END $function$;
