-- Agent-to-agent handoffs (SPEC §16): every state change is one statement, like the conflict
-- engine's (0020): it locks the handoff row, checks, writes the handoff, the outbox events with
-- their deliveries and the audit entries, and returns what the API answers.
-- p_actor: {workspace_id, type, id, agent_id, trace_id, request_id}.

-- A handoff's envelope as the API serializes it (lib/handoffs/serialize.ts serializeHandoff; a test keeps them equal).
CREATE OR REPLACE FUNCTION agentdraft_handoff_json(h handoffs) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', h.id, 'object', 'handoff', 'type', h.type, 'from_agent_id', h.from_agent_id, 'to_agent_id', h.to_agent_id,
    'correlation_id', h.correlation_id, 'parent_id', h.parent_id, 'trace_id', h.trace_id, 'status', h.status,
    'attempt', h.attempt, 'max_attempts', h.max_attempts,
    'claim', CASE WHEN h.status = 'claimed' THEN jsonb_build_object('worker', h.claim_worker,
      'claimed_at', agentdraft_iso(h.claimed_at), 'expires_at', agentdraft_iso(h.claim_expires_at)) END,
    'expires_at', CASE WHEN h.expires_at IS NULL THEN NULL ELSE agentdraft_iso(h.expires_at) END,
    'last_error', h.last_error, 'dead_reason', h.dead_reason,
    'created_at', agentdraft_iso(h.created_at), 'updated_at', agentdraft_iso(h.updated_at),
    'ended_at', CASE WHEN h.ended_at IS NULL THEN NULL ELSE agentdraft_iso(h.ended_at) END)
$$;
--> statement-breakpoint
-- handoff.dead goes to both ends: one event per distinct agent. Returns the deliveries.
CREATE OR REPLACE FUNCTION agentdraft_handoff_dead_events(h handoffs) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_out jsonb := '[]'::jsonb;
  v_agent text;
BEGIN
  FOREACH v_agent IN ARRAY (SELECT array_agg(DISTINCT a) FROM unnest(ARRAY[h.from_agent_id, h.to_agent_id]) AS a) LOOP
    v_out := v_out || (agentdraft_emit(h.workspace_id, 'handoff.dead', v_agent, jsonb_build_object('handoff', agentdraft_handoff_json(h)), h.trace_id)->'deliveries');
  END LOOP;
  RETURN v_out;
END $$;
--> statement-breakpoint
-- Creates a handoff with its body, handoff.received for the recipient and the audit entry.
-- Returns {handoff, deliveries} or {error: {code}} and changes nothing.
CREATE OR REPLACE FUNCTION agentdraft_create_handoff(p_actor jsonb, p_id text, p_from text, p_to text, p_type text, p_body jsonb,
  p_parent text, p_correlation text, p_expires_in int, p_max_attempts int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
--> statement-breakpoint
-- Records what the clock decided for one handoff, if anything: past its deadline it is expired
-- (handoff.expired to the sender); a lapsed claim with no attempts left makes it dead
-- (handoff.dead to both), with attempts left pending again (handoff.received once more).
-- Returns {handoff, deliveries}, or null when nothing was due. Locks the row until the statement's transaction ends.
CREATE OR REPLACE FUNCTION agentdraft_settle_handoff(p_id text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
--> statement-breakpoint
-- Who may work on a handoff: the recipient agent's keys or a workspace-wide key. To another
-- agent-bound key it does not exist, to the sender's it is forbidden. Returns an error code or null.
CREATE OR REPLACE FUNCTION agentdraft_handoff_worker_check(p_actor jsonb, p_id text) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_key_agent text := p_actor->>'agent_id';
  p handoffs;
BEGIN
  SELECT * INTO p FROM handoffs WHERE id = p_id AND workspace_id = p_actor->>'workspace_id';
  IF NOT FOUND THEN RETURN 'not_found'; END IF;
  IF v_key_agent IS NULL OR v_key_agent = p.to_agent_id THEN RETURN NULL; END IF;
  IF v_key_agent = p.from_agent_id THEN RETURN 'forbidden'; END IF;
  RETURN 'not_found';
END $$;
--> statement-breakpoint
-- Claims a handoff for one worker: exactly one of many concurrent claims wins (the row lock taken
-- by settle orders them; the losers see the winner's claim). A lapsed claim is settled first, so
-- it is retaken with attempt + 1. Returns {handoff, body, deliveries} or {error: {code, handoff?}, deliveries}.
CREATE OR REPLACE FUNCTION agentdraft_claim_handoff(p_actor jsonb, p_id text, p_ttl int, p_worker text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_refusal text := agentdraft_handoff_worker_check(p_actor, p_id);
  v_settled jsonb;
  h handoffs;
  v_now timestamptz := clock_timestamp();
BEGIN
  IF v_refusal IS NOT NULL THEN RETURN jsonb_build_object('error', jsonb_build_object('code', v_refusal), 'deliveries', '[]'::jsonb); END IF;
  v_settled := agentdraft_settle_handoff(p_id);
  UPDATE handoffs SET status = 'claimed', attempt = attempt + 1, claim_id = agentdraft_new_id('hclm'), claim_worker = p_worker,
         claimed_at = v_now, claim_expires_at = v_now + make_interval(secs => p_ttl), updated_at = v_now
   WHERE id = p_id AND status = 'pending' AND attempt < max_attempts
  RETURNING * INTO h;
  IF NOT FOUND THEN
    SELECT * INTO h FROM handoffs WHERE id = p_id;
    RETURN jsonb_build_object('error', jsonb_build_object('code', CASE WHEN h.status = 'claimed' THEN 'handoff_claimed' ELSE 'handoff_not_pending' END,
      'handoff', to_jsonb(h)), 'deliveries', coalesce(v_settled->'deliveries', '[]'::jsonb));
  END IF;
  PERFORM agentdraft_audit(p_actor || jsonb_build_object('trace_id', h.trace_id), h.to_agent_id, 'handoff.claimed', 'handoff', h.id,
    jsonb_build_object('attempt', h.attempt, 'worker', h.claim_worker, 'claim_expires_at', agentdraft_iso(h.claim_expires_at)));
  RETURN jsonb_build_object('handoff', to_jsonb(h), 'body', (SELECT body FROM handoff_bodies WHERE handoff_id = h.id),
    'deliveries', coalesce(v_settled->'deliveries', '[]'::jsonb));
END $$;
--> statement-breakpoint
-- What the worker holding a live claim does: complete (handoff.completed with the result to the
-- sender), fail (pending again while attempts remain and retry is asked, else dead: handoff.dead
-- to both) or extend (heartbeat: the claim lives p_ttl seconds from now). A claim that lapsed or
-- was retaken is lost (its claim_id no longer matches). Completing twice with the same claim is a no-op.
-- Returns {handoff, deliveries, changed} or {error: {code, handoff?}}.
CREATE OR REPLACE FUNCTION agentdraft_finish_handoff(p_actor jsonb, p_id text, p_claim_id text, p_action text,
  p_result jsonb, p_error jsonb, p_retry boolean, p_ttl int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
