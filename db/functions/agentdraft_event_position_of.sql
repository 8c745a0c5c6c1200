-- agentdraft_event_position_of: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0054_stream_positions.
--
-- A cursor of the previous design, (txid, seq), as a position: the last event at or before it.
-- Events written before positions existed were all committed when such a cursor was issued, so
-- they are numbered (in (txid, seq) order) before any event after it. Null when the cursor is
-- past the previous design's horizon (never issued).
-- (0054_stream_positions.sql)
CREATE OR REPLACE FUNCTION agentdraft_event_position_of(p_workspace text, p_txid bigint, p_seq bigint)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM agentdraft_event_head(p_workspace);
  IF p_txid > (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint THEN
    RETURN NULL;
  END IF;
  RETURN coalesce((SELECT max(w.position) FROM webhook_events w
                   WHERE w.workspace_id = p_workspace AND w.position IS NOT NULL AND (w.txid, w.seq) <= (p_txid, p_seq)), 0);
END $function$;
