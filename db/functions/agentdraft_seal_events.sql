-- agentdraft_seal_events: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0054_stream_positions.
--
-- Seals a workspace's events (lib/domains/events/read-events.ts): gives the events whose transactions
-- have committed (exactly those a statement sees; an open transaction's are invisible, an
-- aborted one's never visible) the workspace's next stream positions, in (txid, seq) order, at
-- most p_limit of them (null: all). Under a lock on the workspace's event_stream_heads row only:
-- its sealers run one at a time and commit in order; no other workspace waits. A workspace with
-- nothing to seal takes no lock. Returns how many were sealed.
-- (0054_stream_positions.sql)
CREATE OR REPLACE FUNCTION agentdraft_seal_events(p_workspace text, p_limit integer DEFAULT NULL::integer)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_head bigint;
  v_n int;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_events w WHERE w.workspace_id = p_workspace AND w.position IS NULL) THEN
    RETURN 0;
  END IF;
  INSERT INTO event_stream_heads AS h (workspace_id, position) VALUES (p_workspace, 0)
  ON CONFLICT (workspace_id) DO UPDATE SET position = h.position
  RETURNING h.position INTO v_head;
  -- A new statement, a new snapshot: the previous sealer's positions, and every event committed by now.
  WITH pending AS (
    SELECT w.id, row_number() OVER (ORDER BY w.txid, w.seq) AS rn
    FROM (SELECT w.id, w.txid, w.seq FROM webhook_events w WHERE w.workspace_id = p_workspace AND w.position IS NULL
          ORDER BY w.txid, w.seq LIMIT p_limit) w
  ), numbered AS (
    UPDATE webhook_events w SET position = v_head + p.rn FROM pending p WHERE w.id = p.id AND w.position IS NULL RETURNING w.position
  )
  SELECT count(*), max(n.position) INTO v_n, v_head FROM numbered n;
  IF v_n > 0 THEN
    UPDATE event_stream_heads SET position = v_head WHERE workspace_id = p_workspace;
  END IF;
  RETURN v_n;
END $function$;
