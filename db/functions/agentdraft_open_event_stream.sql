-- agentdraft_open_event_stream: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0037_event_stream_functions.
--
-- Takes one of a key's open-stream slots, or refuses when `p_max` are open. One statement: a
-- transaction-scoped lock per key serialises its admissions (so racing opens never exceed the
-- bound), and each following statement of the function sees the slots the others committed.
-- (0037_event_stream_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_open_event_stream(p_key text, p_slot text, p_max integer, p_ttl_seconds integer)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_open int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('agentdraft_event_stream:' || p_key, 0));
  DELETE FROM event_stream_slots WHERE key_id = p_key AND expires_at <= clock_timestamp();
  SELECT count(*) INTO v_open FROM event_stream_slots WHERE key_id = p_key;
  IF v_open >= p_max THEN
    RETURN false;
  END IF;
  INSERT INTO event_stream_slots (id, key_id, expires_at) VALUES (p_slot, p_key, clock_timestamp() + make_interval(secs => p_ttl_seconds));
  RETURN true;
END $function$;
