-- agentdraft_settle_handoff: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- Records what the clock decided for one handoff, if anything: past its deadline it is expired
-- (handoff.expired to the sender); a lapsed claim with no attempts left makes it dead
-- (handoff.dead to both), with attempts left pending again (handoff.received once more).
-- Returns {handoff, deliveries}, or null when nothing was due. Locks the row until the statement's transaction ends.
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_settle_handoff(p_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  b handoffs;
  h handoffs;
  v_sys jsonb;
  v_d jsonb;
  v_now timestamptz := clock_timestamp();
BEGIN
  SELECT * INTO b FROM handoffs WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR b.status NOT IN ('pending', 'claimed') THEN RETURN NULL; END IF;
  v_sys := jsonb_build_object('workspace_id', b.workspace_id, 'type', 'system', 'id', 'handoff-clock', 'trace_id', b.trace_id);
  IF b.expires_at IS NOT NULL AND b.expires_at <= v_now THEN
    UPDATE handoffs SET status = 'expired', ended_at = b.expires_at, updated_at = v_now WHERE id = p_id RETURNING * INTO h;
    v_d := agentdraft_emit(h.workspace_id, 'handoff.expired', h.from_agent_id, jsonb_build_object('handoff', agentdraft_handoff_json(h)), h.trace_id)->'deliveries';
    PERFORM agentdraft_audit(v_sys, h.to_agent_id, 'handoff.expired', 'handoff', h.id, jsonb_build_object('expired_at', agentdraft_iso(h.expires_at), 'attempt', h.attempt));
  ELSIF b.status = 'claimed' AND b.claim_expires_at <= v_now THEN
    PERFORM agentdraft_audit(v_sys, b.to_agent_id, 'handoff.claim_expired', 'handoff', b.id,
      jsonb_build_object('attempt', b.attempt, 'worker', b.claim_worker, 'claim_expired_at', agentdraft_iso(b.claim_expires_at)));
    IF b.attempt >= b.max_attempts THEN
      UPDATE handoffs SET status = 'dead', dead_reason = 'attempts', ended_at = v_now, updated_at = v_now,
             last_error = jsonb_build_object('message', 'The claim expired before the worker finished.', 'attempt', b.attempt)
       WHERE id = p_id RETURNING * INTO h;
      v_d := agentdraft_handoff_dead_events(h);
      PERFORM agentdraft_audit(v_sys, h.to_agent_id, 'handoff.dead', 'handoff', h.id, jsonb_build_object('reason', 'attempts', 'attempt', h.attempt));
    ELSE
      UPDATE handoffs SET status = 'pending', claim_id = NULL, claim_worker = NULL, claimed_at = NULL, claim_expires_at = NULL, updated_at = v_now,
             last_error = jsonb_build_object('message', 'The claim expired before the worker finished.', 'attempt', b.attempt)
       WHERE id = p_id RETURNING * INTO h;
      v_d := agentdraft_emit(h.workspace_id, 'handoff.received', h.to_agent_id, jsonb_build_object('handoff', agentdraft_handoff_json(h)), h.trace_id)->'deliveries';
    END IF;
  ELSE
    RETURN NULL;
  END IF;
  RETURN jsonb_build_object('handoff', to_jsonb(h), 'deliveries', v_d);
END $function$;
