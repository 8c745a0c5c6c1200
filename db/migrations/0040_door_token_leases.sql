-- Token leases: a request that finds its bucket well stocked takes a small batch of tokens (a
-- lease) instead of one, and its instance spends the rest locally (lib/api/token-leases.ts), so
-- the door of most requests writes nothing when traffic is heavy. A lease is at most 5 % of what
-- the bucket holds and 50 ms of its refill rate (at least one token, at most 1000): near the
-- limit every lease is one token, so a limit holds exactly; far from it, an instance strands at
-- most one lease for a second (under-admission, never over-admission: every token spent was
-- taken from the bucket).
CREATE OR REPLACE FUNCTION agentdraft_lease_tokens(p_names text[], p_rates float8[], p_bursts float8[])
RETURNS TABLE(name text, left_tokens float8, ok boolean, granted int) LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
BEGIN
  RETURN QUERY
  INSERT INTO rate_limit_buckets AS b (bucket, tokens, updated_at, allowed, rate, burst, granted)
  SELECT n.name, n.burst - g.lease, v_now, true, n.rate, n.burst, g.lease
  FROM unnest(p_names, p_rates, p_bursts) WITH ORDINALITY AS n(name, rate, burst, i)
  CROSS JOIN LATERAL (SELECT greatest(1, least(floor(n.burst * 0.05), floor(n.rate * 0.05), 1000))::int AS lease) AS g
  WHERE n.name IS NOT NULL ORDER BY n.i
  ON CONFLICT (bucket) DO UPDATE SET
    granted = CASE WHEN least(excluded.burst, b.tokens + extract(epoch FROM (v_now - b.updated_at)) * excluded.rate) >= 1 THEN greatest(1, least(floor(least(excluded.burst, b.tokens + extract(epoch FROM (v_now - b.updated_at)) * excluded.rate) * 0.05), floor(excluded.rate * 0.05), 1000))::int ELSE 0 END,
    tokens = least(excluded.burst, b.tokens + extract(epoch FROM (v_now - b.updated_at)) * excluded.rate) - CASE WHEN least(excluded.burst, b.tokens + extract(epoch FROM (v_now - b.updated_at)) * excluded.rate) >= 1 THEN greatest(1, least(floor(least(excluded.burst, b.tokens + extract(epoch FROM (v_now - b.updated_at)) * excluded.rate) * 0.05), floor(excluded.rate * 0.05), 1000)) ELSE 0 END,
    allowed = least(excluded.burst, b.tokens + extract(epoch FROM (v_now - b.updated_at)) * excluded.rate) >= 1,
    updated_at = v_now, rate = excluded.rate, burst = excluded.burst
  RETURNING b.bucket, b.tokens, b.allowed, b.granted;
END $$;
--> statement-breakpoint
-- The door (0027) with the leases: the caller says which buckets it needs a token from (none,
-- when its instance still holds leased tokens for both), and hears how many each granted.
DROP FUNCTION agentdraft_admit(text, text, integer, float8, float8, float8, float8);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_admit(p_hash text, p_idempotency_key text, p_used_secs integer, p_key_rate float8, p_key_burst float8,
  p_ws_rate float8, p_ws_burst float8, p_take_key boolean, p_take_ws boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
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
  IF NOT FOUND THEN RETURN NULL; END IF;
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
END $$;
