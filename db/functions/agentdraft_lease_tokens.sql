-- agentdraft_lease_tokens: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0040_door_token_leases.
--
-- Token leases: a request that finds its bucket well stocked takes a small batch of tokens (a
-- lease) instead of one, and its instance spends the rest locally (lib/platform/api/token-leases.ts), so
-- the door of most requests writes nothing when traffic is heavy. A lease is at most 5 % of what
-- the bucket holds and 50 ms of its refill rate (at least one token, at most 1000): near the
-- limit every lease is one token, so a limit holds exactly; far from it, an instance strands at
-- most one lease for a second (under-admission, never over-admission: every token spent was
-- taken from the bucket).
-- (0040_door_token_leases.sql)
CREATE OR REPLACE FUNCTION agentdraft_lease_tokens(p_names text[], p_rates double precision[], p_bursts double precision[])
 RETURNS TABLE(name text, left_tokens double precision, ok boolean, granted integer)
 LANGUAGE plpgsql
AS $function$
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
END $function$;
