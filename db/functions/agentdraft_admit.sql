-- agentdraft_admit: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0027_one_statement_door, 0040_door_token_leases, 0044_engine_generic_plans, 0053_oauth.
--
-- The door of every key-authenticated request (SPEC §11): the key by its hash (or the key of a live
-- OAuth access token with that hash, since 0053_oauth), tokens from its
-- bucket and its workspace's (the caller says which it needs: none while its instance still holds
-- leased tokens, lib/platform/api/token-leases.ts) and how many each granted, last_used_at refreshed when
-- it is p_used_secs old, the workspace's name, the key's agent and the response stored for the
-- request's Idempotency-Key. Returns null for an unknown key.
-- (0027_one_statement_door.sql, 0040_door_token_leases.sql, 0053_oauth.sql)
CREATE OR REPLACE FUNCTION agentdraft_admit(p_hash text, p_idempotency_key text, p_used_secs integer, p_key_rate double precision, p_key_burst double precision, p_ws_rate double precision, p_ws_burst double precision, p_take_key boolean, p_take_ws boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  k api_keys;
  v_key_tokens float8;
  v_key_ok boolean;
  v_key_granted int;
  v_ws_tokens float8;
  v_ws_ok boolean;
  v_ws_granted int;
BEGIN
  SELECT * INTO k FROM api_keys WHERE hash = p_hash;
  IF NOT FOUND THEN
    -- An OAuth access token acts as its grant's key while it lives (expired: unknown, so 401).
    SELECT a.* INTO k FROM oauth_tokens t JOIN api_keys a ON a.id = t.api_key_id
     WHERE t.hash = p_hash AND t.kind = 'access' AND t.expires_at > now();
    IF NOT FOUND THEN RETURN NULL; END IF;
  END IF;
  IF k.revoked_at IS NOT NULL THEN RETURN jsonb_build_object('revoked', true); END IF;
  -- Most requests find last_used_at fresh and write nothing (the WHERE keeps racing twins to one write).
  IF k.last_used_at IS NULL OR k.last_used_at < now() - make_interval(secs => p_used_secs) THEN
    UPDATE api_keys SET last_used_at = now()
     WHERE id = k.id AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => p_used_secs));
  END IF;
  IF p_take_key OR p_take_ws THEN
    SELECT max(t.left_tokens) FILTER (WHERE t.name LIKE 'key:%'), bool_or(t.ok) FILTER (WHERE t.name LIKE 'key:%'), max(t.granted) FILTER (WHERE t.name LIKE 'key:%'),
           max(t.left_tokens) FILTER (WHERE t.name LIKE 'ws:%'), bool_or(t.ok) FILTER (WHERE t.name LIKE 'ws:%'), max(t.granted) FILTER (WHERE t.name LIKE 'ws:%')
      INTO v_key_tokens, v_key_ok, v_key_granted, v_ws_tokens, v_ws_ok, v_ws_granted
      FROM agentdraft_lease_tokens(ARRAY[CASE WHEN p_take_key THEN 'key:' || k.id END, CASE WHEN p_take_ws THEN 'ws:' || k.workspace_id END],
                                   ARRAY[p_key_rate, p_ws_rate], ARRAY[p_key_burst, p_ws_burst]) AS t;
  END IF;
  RETURN jsonb_build_object(
    'revoked', false, 'id', k.id, 'workspace_id', k.workspace_id, 'agent_id', k.agent_id, 'scopes', to_jsonb(k.scopes), 'mode', k.mode,
    'key_tokens', v_key_tokens, 'key_allowed', v_key_ok, 'key_granted', v_key_granted,
    'ws_tokens', v_ws_tokens, 'ws_allowed', v_ws_ok, 'ws_granted', v_ws_granted,
    'workspace_name', (SELECT w.name FROM workspaces w WHERE w.id = k.workspace_id),
    'agent', (SELECT to_jsonb(a) FROM agents a WHERE a.id = k.agent_id),
    'stored', CASE WHEN p_idempotency_key IS NULL THEN NULL ELSE
      (SELECT jsonb_build_object('requestHash', s.request_hash, 'responseStatus', s.response_status, 'responseHeaders', s.response_headers,
                                 'responseBody', s.response_body, 'result', s.result)
         FROM idempotency_keys s WHERE s.api_key_id = k.id AND s.key = p_idempotency_key AND s.expires_at > now()) END);
END $function$;
