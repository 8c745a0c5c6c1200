-- agentdraft_create_handoff: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- Creates a handoff with its body, handoff.received for the recipient and the audit entry.
-- Returns {handoff, deliveries} or {error: {code}} and changes nothing.
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_create_handoff(p_actor jsonb, p_id text, p_from text, p_to text, p_type text, p_body jsonb, p_parent text, p_correlation text, p_expires_in integer, p_max_attempts integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_parent handoffs;
  h handoffs;
  v_emitted jsonb;
  v_correlation text;
BEGIN
  PERFORM 1 FROM agents WHERE id = p_from AND workspace_id = v_ws;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'from_agent_not_found')); END IF;
  PERFORM 1 FROM agents WHERE id = p_to AND workspace_id = v_ws;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'to_agent_not_found')); END IF;
  IF p_parent IS NOT NULL THEN
    SELECT * INTO v_parent FROM handoffs WHERE id = p_parent AND workspace_id = v_ws;
    -- An agent-bound key builds only on handoffs it sent or received.
    IF NOT FOUND OR (v_key_agent IS NOT NULL AND v_key_agent <> v_parent.from_agent_id AND v_key_agent <> v_parent.to_agent_id) THEN
      RETURN jsonb_build_object('error', jsonb_build_object('code', 'parent_not_found'));
    END IF;
  END IF;
  v_correlation := coalesce(p_correlation, v_parent.correlation_id, p_id);
  INSERT INTO handoffs (id, workspace_id, type, from_agent_id, to_agent_id, correlation_id, parent_id, trace_id, status, attempt,
                        max_attempts, expires_at, created_at, updated_at)
  VALUES (p_id, v_ws, p_type, p_from, p_to, v_correlation, p_parent, coalesce(p_actor->>'trace_id', v_parent.trace_id, v_correlation),
          'pending', 0, p_max_attempts,
          CASE WHEN p_expires_in IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => p_expires_in) END,
          date_trunc('milliseconds', clock_timestamp()), date_trunc('milliseconds', clock_timestamp()))
  RETURNING * INTO h;
  INSERT INTO handoff_bodies (handoff_id, workspace_id, body) VALUES (h.id, v_ws, p_body);
  v_emitted := agentdraft_emit(v_ws, 'handoff.received', h.to_agent_id, jsonb_build_object('handoff', agentdraft_handoff_json(h)), h.trace_id);
  PERFORM agentdraft_audit(p_actor || jsonb_build_object('trace_id', h.trace_id), h.from_agent_id, 'handoff.created', 'handoff', h.id,
    jsonb_build_object('type', h.type, 'to_agent_id', h.to_agent_id, 'parent_id', h.parent_id, 'correlation_id', h.correlation_id));
  RETURN jsonb_build_object('handoff', to_jsonb(h), 'deliveries', v_emitted->'deliveries');
END $function$;
