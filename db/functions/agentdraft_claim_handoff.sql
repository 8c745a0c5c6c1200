-- agentdraft_claim_handoff: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- Claims a handoff for one worker: exactly one of many concurrent claims wins (the row lock taken
-- by settle orders them; the losers see the winner's claim). A lapsed claim is settled first, so
-- it is retaken with attempt + 1. Returns {handoff, body, deliveries} or {error: {code, handoff?}, deliveries}.
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_claim_handoff(p_actor jsonb, p_id text, p_ttl integer, p_worker text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
END $function$;
