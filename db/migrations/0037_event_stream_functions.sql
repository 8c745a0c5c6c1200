-- GET /v1/events (SPEC §14). A stream's slot need not survive a crash (its stream died with the
-- server): unlogged, opening and renewing one costs no WAL flush.
ALTER TABLE "event_stream_slots" SET UNLOGGED;
--> statement-breakpoint
-- Takes one of a key's open-stream slots, or refuses when `p_max` are open. One statement: a
-- transaction-scoped lock per key serialises its admissions (so racing opens never exceed the
-- bound), and each following statement of the function sees the slots the others committed.
CREATE OR REPLACE FUNCTION agentdraft_open_event_stream(p_key text, p_slot text, p_max int, p_ttl_seconds int)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
