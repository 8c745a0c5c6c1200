-- agentdraft_take_tokens: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0027_one_statement_door.
--
-- Takes one token from each named bucket (a null name is skipped): refill = min(burst, tokens +
-- elapsed * rate), one is taken when refill >= 1. The row lock of ON CONFLICT DO UPDATE makes
-- concurrent requests on one bucket take turns, so a limit holds across any number of server
-- instances. Each bucket keeps the limits it was last asked with.
-- (0027_one_statement_door.sql)
CREATE OR REPLACE FUNCTION agentdraft_take_tokens(p_names text[], p_rates double precision[], p_bursts double precision[])
 RETURNS TABLE(name text, left_tokens double precision, ok boolean)
 LANGUAGE plpgsql
AS $function$
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
END $function$;
