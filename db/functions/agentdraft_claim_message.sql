-- agentdraft_claim_message: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions, 0049_message_claim_workers.
--
-- Claims, releases or completes a received message for one worker (SPEC §12) in one statement,
-- under the message's row lock. The worker is the claim: its id (p_claim_id, from the claim) proves
-- it, so workers sharing an agent's key are told apart. claim: any live claim → {error:
-- message_claimed}, unless p_claim_id names it and the key is the claiming one (renewed); a
-- p_claim_id that names no live claim → {error: claim_not_active} (it lapsed: the worker must know);
-- a completed message → {error: message_completed}; a claim past its TTL is recorded expired and the
-- message taken again. release/complete: only the claim p_claim_id names, with the key that made it;
-- without p_claim_id → {error: claim_id_required} (workers sharing a key must not end each other's
-- claims, #48). Agent-bound keys reach only their agent's inboxes. Returns {claim, deliveries,
-- changed} or {error: {code, claim?}}.
-- The seven-argument form comes first: the five-argument one (LANGUAGE sql, checked when it is
-- created) calls it.
CREATE OR REPLACE FUNCTION agentdraft_claim_message(p_actor jsonb, p_id text, p_message_id text, p_action text, p_ttl integer, p_claim_id text, p_worker text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key text := p_actor->>'id';
  v_key_agent text := p_actor->>'agent_id';
  v_trace text := p_actor->>'trace_id';
  v_inbox text;
  v_inbox_agent text;
  v_mine boolean;
  c message_claims;
  v_emitted jsonb;
BEGIN
  SELECT m.inbox_id, i.agent_id INTO v_inbox, v_inbox_agent FROM messages m JOIN inboxes i ON i.id = m.inbox_id
   WHERE m.id = p_message_id AND m.workspace_id = v_ws AND m.direction = 'inbound';
  IF NOT FOUND OR (v_key_agent IS NOT NULL AND v_inbox_agent IS DISTINCT FROM v_key_agent) THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found'));
  END IF;
  PERFORM 1 FROM messages WHERE id = p_message_id FOR UPDATE;
  SELECT * INTO c FROM message_claims WHERE message_id = p_message_id AND status IN ('claimed', 'completed') FOR UPDATE;
  IF FOUND AND c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN
    UPDATE message_claims SET status = 'expired', ended_at = expires_at WHERE id = c.id RETURNING * INTO c;
    PERFORM agentdraft_audit(jsonb_build_object('workspace_id', v_ws, 'type', 'system', 'id', 'claim-expiry'), c.agent_id, 'message.claim_expired', 'message', p_message_id,
      jsonb_build_object('claim_id', c.id, 'expired_at', agentdraft_iso(c.expires_at)));
  END IF;
  -- Ending a claim names it: the key alone is every worker that shares it.
  IF p_action <> 'claim' AND p_claim_id IS NULL THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'claim_id_required', 'claim', CASE WHEN c.id IS NOT NULL THEN agentdraft_claim_json(c) END));
  END IF;
  -- This worker's claim: the key that made it, and the claim's id.
  v_mine := coalesce(c.id IS NOT NULL AND c.api_key_id = v_key AND p_claim_id = c.id, false);
  IF c.id IS NOT NULL AND c.status = 'completed' THEN
    IF p_action = 'complete' AND v_mine THEN
      RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', '[]'::jsonb, 'changed', false);
    END IF;
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'message_completed', 'claim', agentdraft_claim_json(c)));
  END IF;
  IF c.id IS NOT NULL AND c.status = 'claimed' AND NOT v_mine THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'message_claimed', 'claim', agentdraft_claim_json(c)));
  END IF;
  IF p_action = 'claim' THEN
    IF v_mine THEN
      UPDATE message_claims SET ttl_seconds = p_ttl, expires_at = clock_timestamp() + make_interval(secs => p_ttl) WHERE id = c.id RETURNING * INTO c;
      PERFORM agentdraft_audit(p_actor, c.agent_id, 'message.claim_renewed', 'message', p_message_id, jsonb_build_object('claim_id', c.id, 'ttl_seconds', p_ttl));
      RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', '[]'::jsonb, 'changed', true);
    END IF;
    IF p_claim_id IS NOT NULL THEN
      RETURN jsonb_build_object('error', jsonb_build_object('code', 'claim_not_active'));
    END IF;
    INSERT INTO message_claims (id, workspace_id, message_id, inbox_id, agent_id, api_key_id, worker, status, ttl_seconds, expires_at, created_at)
    VALUES (p_id, v_ws, p_message_id, v_inbox, v_key_agent, v_key, p_worker, 'claimed', p_ttl, clock_timestamp() + make_interval(secs => p_ttl), clock_timestamp())
    RETURNING * INTO c;
    v_emitted := agentdraft_emit(v_ws, 'message.claimed', coalesce(v_key_agent, v_inbox_agent), jsonb_build_object('claim', agentdraft_claim_json(c)), v_trace);
    PERFORM agentdraft_audit(p_actor, v_key_agent, 'message.claimed', 'message', p_message_id, jsonb_build_object('claim_id', c.id, 'ttl_seconds', p_ttl, 'worker', p_worker));
    RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', v_emitted->'deliveries', 'changed', true);
  END IF;
  IF NOT v_mine OR c.status <> 'claimed' THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'claim_not_active'));
  END IF;
  UPDATE message_claims SET status = CASE p_action WHEN 'complete' THEN 'completed' ELSE 'released' END, ended_at = clock_timestamp()
   WHERE id = c.id RETURNING * INTO c;
  v_emitted := agentdraft_emit(v_ws, 'message.' || c.status, coalesce(c.agent_id, v_inbox_agent), jsonb_build_object('claim', agentdraft_claim_json(c)), v_trace);
  PERFORM agentdraft_audit(p_actor, c.agent_id, 'message.claim_' || c.status, 'message', p_message_id, jsonb_build_object('claim_id', c.id));
  RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', v_emitted->'deliveries', 'changed', true);
END $function$;

-- The five-argument form, which instances still running the previous release call during a deploy:
-- it has no claim id, so a second claim from the same key no longer renews (it is refused as another
-- worker's), and ending a claim is refused (claim_id_required).
CREATE OR REPLACE FUNCTION agentdraft_claim_message(p_actor jsonb, p_id text, p_message_id text, p_action text, p_ttl integer)
 RETURNS jsonb
 LANGUAGE sql
AS $function$
  SELECT agentdraft_claim_message(p_actor, p_id, p_message_id, p_action, p_ttl, NULL::text, NULL::text)
$function$;
