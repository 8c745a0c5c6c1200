-- The API door as a function (SPEC §11): Postgres plans a plpgsql function's statements once per
-- connection, where a long parameterised statement sent from the application is planned on
-- every request (about four fifths of the door's database time). The helpers every state change
-- calls (ids, audit entries, fan-out) become plpgsql for the same reason: a SQL-language
-- function that is not inlined is planned again at each call.

-- Crockford base32 of n's low `width` digits (width <= 10), in one expression instead of a loop.
CREATE OR REPLACE FUNCTION agentdraft_base32(n bigint, width int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN right(
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 40) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 30) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 20) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 10) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (n & 31)::int + 1, 1),
    width);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_new_id(p_prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN p_prefix || '_' || agentdraft_base32(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 10)
    || agentdraft_base32(nextval('agentdraft_id_seq'), 4) || substr(md5(random()::text || clock_timestamp()::text), 1, 12);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_fan_out(ev webhook_events) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_out jsonb;
BEGIN
  WITH d AS (
    INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at)
    SELECT 'whd_' || substr(ev.id, 5, 10) || substr(md5(ev.id || e.id), 1, 16), ev.workspace_id, e.id, ev.id, ev.type, ev.created_at
    FROM webhook_endpoints e
    WHERE e.workspace_id = ev.workspace_id AND e.enabled
      AND (e.event_types IS NULL OR ev.type = ANY(e.event_types))
      AND (e.agent_ids IS NULL OR (ev.agent_id IS NOT NULL AND ev.agent_id = ANY(e.agent_ids)))
    ON CONFLICT DO NOTHING
    RETURNING id, endpoint_id, next_attempt_at
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'endpoint_id', d.endpoint_id, 'due_at', d.next_attempt_at)), '[]'::jsonb) INTO v_out FROM d;
  RETURN v_out;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_audit(p_actor jsonb, p_agent text, p_action text, p_resource_type text, p_resource_id text, p_summary jsonb, p_outcome text DEFAULT 'succeeded')
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO audit_entries (id, workspace_id, at, actor_type, actor_id, agent_id, action, resource_type, resource_id, trace_id, request_id, summary, outcome)
  VALUES (agentdraft_new_id('aud'), p_actor->>'workspace_id', date_trunc('milliseconds', clock_timestamp()), p_actor->>'type', p_actor->>'id', p_agent,
          p_action, p_resource_type, p_resource_id, p_actor->>'trace_id', p_actor->>'request_id', coalesce(p_summary, '{}'::jsonb), p_outcome);
END $$;
--> statement-breakpoint
-- Takes one token from each named bucket (a null name is skipped): refill = min(burst, tokens +
-- elapsed * rate), one is taken when refill >= 1. The row lock of ON CONFLICT DO UPDATE makes
-- concurrent requests on one bucket take turns, so a limit holds across any number of server
-- instances. Each bucket keeps the limits it was last asked with.
CREATE OR REPLACE FUNCTION agentdraft_take_tokens(p_names text[], p_rates float8[], p_bursts float8[])
RETURNS TABLE (name text, left_tokens float8, ok boolean) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN QUERY
  INSERT INTO rate_limit_buckets AS b (bucket, tokens, updated_at, allowed, rate, burst)
  SELECT n.name, n.burst - 1, clock_timestamp(), true, n.rate, n.burst
  FROM unnest(p_names, p_rates, p_bursts) WITH ORDINALITY AS n(name, rate, burst, i) WHERE n.name IS NOT NULL ORDER BY n.i
  ON CONFLICT (bucket) DO UPDATE SET
    tokens = CASE WHEN least(excluded.burst, b.tokens + extract(epoch FROM (clock_timestamp() - b.updated_at)) * excluded.rate) >= 1
                  THEN least(excluded.burst, b.tokens + extract(epoch FROM (clock_timestamp() - b.updated_at)) * excluded.rate) - 1
                  ELSE least(excluded.burst, b.tokens + extract(epoch FROM (clock_timestamp() - b.updated_at)) * excluded.rate) END,
    allowed = least(excluded.burst, b.tokens + extract(epoch FROM (clock_timestamp() - b.updated_at)) * excluded.rate) >= 1,
    updated_at = clock_timestamp(), rate = excluded.rate, burst = excluded.burst
  RETURNING b.bucket, b.tokens, b.allowed;
END $$;
--> statement-breakpoint
-- The door of every key-authenticated request: the key by its hash, a token from its bucket and
-- one from its workspace's, last_used_at refreshed when it is p_used_secs old, the workspace's
-- name, the key's agent and the response stored for the request's Idempotency-Key. Returns null
-- for an unknown key.
CREATE OR REPLACE FUNCTION agentdraft_admit(p_hash text, p_idempotency_key text, p_used_secs int,
  p_key_rate float8, p_key_burst float8, p_ws_rate float8, p_ws_burst float8)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  k api_keys;
  v_key_tokens float8;
  v_key_ok boolean;
  v_ws_tokens float8;
  v_ws_ok boolean;
BEGIN
  SELECT * INTO k FROM api_keys WHERE hash = p_hash;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF k.revoked_at IS NOT NULL THEN RETURN jsonb_build_object('revoked', true); END IF;
  UPDATE api_keys SET last_used_at = now()
   WHERE id = k.id AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => p_used_secs));
  SELECT max(t.left_tokens) FILTER (WHERE t.name LIKE 'key:%'), bool_or(t.ok) FILTER (WHERE t.name LIKE 'key:%'),
         max(t.left_tokens) FILTER (WHERE t.name LIKE 'ws:%'), bool_or(t.ok) FILTER (WHERE t.name LIKE 'ws:%')
    INTO v_key_tokens, v_key_ok, v_ws_tokens, v_ws_ok
    FROM agentdraft_take_tokens(ARRAY['key:' || k.id, 'ws:' || k.workspace_id], ARRAY[p_key_rate, p_ws_rate], ARRAY[p_key_burst, p_ws_burst]) AS t;
  RETURN jsonb_build_object(
    'revoked', false, 'id', k.id, 'workspace_id', k.workspace_id, 'agent_id', k.agent_id, 'scopes', to_jsonb(k.scopes), 'mode', k.mode,
    'key_tokens', v_key_tokens, 'key_allowed', v_key_ok, 'ws_tokens', v_ws_tokens, 'ws_allowed', v_ws_ok,
    'workspace_name', (SELECT w.name FROM workspaces w WHERE w.id = k.workspace_id),
    'agent', (SELECT to_jsonb(a) FROM agents a WHERE a.id = k.agent_id),
    'stored', CASE WHEN p_idempotency_key IS NULL THEN NULL ELSE
      (SELECT jsonb_build_object('requestHash', s.request_hash, 'responseStatus', s.response_status, 'responseHeaders', s.response_headers,
                                 'responseBody', s.response_body, 'result', s.result)
         FROM idempotency_keys s WHERE s.api_key_id = k.id AND s.key = p_idempotency_key AND s.expires_at > now()) END);
END $$;
