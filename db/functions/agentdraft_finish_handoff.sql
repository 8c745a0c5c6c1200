-- agentdraft_finish_handoff: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- What the worker holding a live claim does: complete (handoff.completed with the result to the
-- sender), fail (pending again while attempts remain and retry is asked, else dead: handoff.dead
-- to both) or extend (heartbeat: the claim lives p_ttl seconds from now). A claim that lapsed or
-- was retaken is lost (its claim_id no longer matches). Completing twice with the same claim is a no-op.
-- Returns {handoff, deliveries, changed} or {error: {code, handoff?}}.
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_finish_handoff(p_actor jsonb, p_id text, p_claim_id text, p_action text, p_result jsonb, p_error jsonb, p_retry boolean, p_ttl integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_refusal text := agentdraft_handoff_worker_check(p_actor, p_id);
  v_actor jsonb;
  h handoffs;
  v_d jsonb := '[]'::jsonb;
  v_now timestamptz := clock_timestamp();
BEGIN
  IF v_refusal IS NOT NULL THEN RETURN jsonb_build_object('error', jsonb_build_object('code', v_refusal)); END IF;
  SELECT * INTO h FROM handoffs WHERE id = p_id FOR UPDATE;
  IF h.status = 'completed' AND h.claim_id = p_claim_id AND p_action = 'complete' THEN
    RETURN jsonb_build_object('handoff', to_jsonb(h), 'deliveries', '[]'::jsonb, 'changed', false);
  END IF;
  IF h.status <> 'claimed' OR h.claim_id IS DISTINCT FROM p_claim_id OR h.claim_expires_at <= v_now
     OR (h.expires_at IS NOT NULL AND h.expires_at <= v_now) THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'handoff_claim_lost', 'handoff', to_jsonb(h)));
  END IF;
  v_actor := p_actor || jsonb_build_object('trace_id', h.trace_id);
  IF p_action = 'extend' THEN
    UPDATE handoffs SET claim_expires_at = v_now + make_interval(secs => p_ttl), updated_at = v_now WHERE id = p_id RETURNING * INTO h;
  ELSIF p_action = 'complete' THEN
    UPDATE handoffs SET status = 'completed', result = p_result, ended_at = v_now, updated_at = v_now WHERE id = p_id RETURNING * INTO h;
    v_d := agentdraft_emit(h.workspace_id, 'handoff.completed', h.from_agent_id,
      jsonb_build_object('handoff', agentdraft_handoff_json(h), 'result', h.result), h.trace_id)->'deliveries';
    PERFORM agentdraft_audit(v_actor, h.to_agent_id, 'handoff.completed', 'handoff', h.id, jsonb_build_object('attempt', h.attempt, 'worker', h.claim_worker));
  ELSIF p_action = 'fail' THEN
    PERFORM agentdraft_audit(v_actor, h.to_agent_id, 'handoff.failed', 'handoff', h.id,
      jsonb_build_object('attempt', h.attempt, 'worker', h.claim_worker, 'retry', p_retry, 'error', p_error->>'message'), 'failed');
    IF p_retry AND h.attempt < h.max_attempts THEN
      UPDATE handoffs SET status = 'pending', claim_id = NULL, claim_worker = NULL, claimed_at = NULL, claim_expires_at = NULL, updated_at = v_now,
             last_error = p_error || jsonb_build_object('attempt', h.attempt)
       WHERE id = p_id RETURNING * INTO h;
      v_d := agentdraft_emit(h.workspace_id, 'handoff.received', h.to_agent_id, jsonb_build_object('handoff', agentdraft_handoff_json(h)), h.trace_id)->'deliveries';
    ELSE
      UPDATE handoffs SET status = 'dead', dead_reason = CASE WHEN p_retry THEN 'attempts' ELSE 'failed' END, ended_at = v_now, updated_at = v_now,
             last_error = p_error || jsonb_build_object('attempt', h.attempt)
       WHERE id = p_id RETURNING * INTO h;
      v_d := agentdraft_handoff_dead_events(h);
      PERFORM agentdraft_audit(v_actor, h.to_agent_id, 'handoff.dead', 'handoff', h.id, jsonb_build_object('reason', h.dead_reason, 'attempt', h.attempt));
    END IF;
  ELSE
    RAISE EXCEPTION 'unknown handoff action %', p_action;
  END IF;
  RETURN jsonb_build_object('handoff', to_jsonb(h), 'deliveries', v_d, 'changed', true);
END $function$;
