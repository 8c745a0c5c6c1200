-- agentdraft_open_live_stream: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0056_limits.
--
-- Takes one of a member's live-channel slots (the web app's /api/live), for one session:
-- 'opened', 'full' beyond p_max, or 'signed_out' when the session ended or the member was
-- removed. Serialised per member, as agentdraft_open_event_stream is per key.
-- (0056_limits.sql)
CREATE OR REPLACE FUNCTION agentdraft_open_live_stream(p_member text, p_session text, p_slot text, p_max integer, p_ttl_seconds integer)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_open int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('agentdraft_live_stream:' || p_member, 0));
  IF NOT EXISTS (SELECT 1 FROM sessions WHERE session_token = p_session AND expires > clock_timestamp())
     OR NOT EXISTS (SELECT 1 FROM members WHERE id = p_member) THEN
    RETURN 'signed_out';
  END IF;
  DELETE FROM event_stream_slots WHERE member_id = p_member AND expires_at <= clock_timestamp();
  SELECT count(*) INTO v_open FROM event_stream_slots WHERE member_id = p_member;
  IF v_open >= p_max THEN
    RETURN 'full';
  END IF;
  INSERT INTO event_stream_slots (id, member_id, session_token, expires_at) VALUES (p_slot, p_member, p_session, clock_timestamp() + make_interval(secs => p_ttl_seconds));
  RETURN 'opened';
END $function$;
