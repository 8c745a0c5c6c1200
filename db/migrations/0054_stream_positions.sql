-- Per-workspace ordering by commit: event stream positions given by a per-workspace sealer (issue #30, item 6).
CREATE TABLE "event_stream_heads" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"position" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "position" bigint;--> statement-breakpoint
ALTER TABLE "event_stream_heads" ADD CONSTRAINT "event_stream_heads_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Sealing is per workspace (lib/audit/seal-chain.ts): its sealer finds its own unsealed entries
-- without passing another workspace's. The audit tables may be owned by agentdraft_audit_owner
-- (migration 0023), which a migrator that is not a superuser cannot act as: then the index is left
-- out (sealing still works, by the index of all unsealed entries) and the notice says so.
DO $$
BEGIN
  CREATE INDEX IF NOT EXISTS "audit_entries_unsealed_workspace_idx" ON "audit_entries" USING btree ("workspace_id","position") WHERE "audit_entries"."hash" is null;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'agentdraft: % does not own audit_entries: create audit_entries_unsealed_workspace_idx as its owner (see migration 0054)', current_user;
END;
$$;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_position_key" ON "webhook_events" USING btree ("workspace_id","position");--> statement-breakpoint
CREATE INDEX "webhook_events_unsealed_idx" ON "webhook_events" USING btree ("workspace_id","txid","seq") WHERE "webhook_events"."position" is null;
--> statement-breakpoint
-- Seals a workspace's events (lib/events/read-events.ts): gives the events whose transactions
-- have committed (exactly those a statement sees; an open transaction's are invisible, an
-- aborted one's never visible) the workspace's next stream positions, in (txid, seq) order, at
-- most p_limit of them (null: all). Under a lock on the workspace's event_stream_heads row only:
-- its sealers run one at a time and commit in order; no other workspace waits. A workspace with
-- nothing to seal takes no lock. Returns how many were sealed.
CREATE OR REPLACE FUNCTION agentdraft_seal_events(p_workspace text, p_limit int DEFAULT NULL)
RETURNS int LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
--> statement-breakpoint
-- A workspace's stream head, after sealing everything it has committed.
CREATE OR REPLACE FUNCTION agentdraft_event_head(p_workspace text)
RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  LOOP
    EXIT WHEN agentdraft_seal_events(p_workspace, 5000) < 5000;
  END LOOP;
  RETURN coalesce((SELECT h.position FROM event_stream_heads h WHERE h.workspace_id = p_workspace), 0);
END $$;
--> statement-breakpoint
-- A cursor of the previous design, (txid, seq), as a position: the last event at or before it.
-- Events written before positions existed were all committed when such a cursor was issued, so
-- they are numbered (in (txid, seq) order) before any event after it. Null when the cursor is
-- past the previous design's horizon (never issued).
CREATE OR REPLACE FUNCTION agentdraft_event_position_of(p_workspace text, p_txid bigint, p_seq bigint)
RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM agentdraft_event_head(p_workspace);
  IF p_txid > (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint THEN
    RETURN NULL;
  END IF;
  RETURN coalesce((SELECT max(w.position) FROM webhook_events w
                   WHERE w.workspace_id = p_workspace AND w.position IS NOT NULL AND (w.txid, w.seq) <= (p_txid, p_seq)), 0);
END $$;
--> statement-breakpoint
-- One read of a workspace's stream (lib/events/read-events.ts), in one round trip: seals what has
-- committed (at most 5000 events; `more` says a backlog is left), then the events after p_after
-- (null: none, only the head) that pass the filter, in position order, and the head, all seen by
-- one statement's snapshot. One row with a null id when there are none.
CREATE OR REPLACE FUNCTION agentdraft_read_events(p_workspace text, p_after bigint, p_types text[], p_agent text, p_since timestamptz, p_limit int)
RETURNS TABLE (head bigint, more boolean, id text, type text, data jsonb, trace_id text, created_ms bigint, event_position bigint)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_more boolean := agentdraft_seal_events(p_workspace, 5000) >= 5000;
BEGIN
  RETURN QUERY
    SELECT coalesce(h.position, 0)::bigint, v_more, e.id, e.type, e.data, e.trace_id,
      floor(extract(epoch from e.created_at) * 1000)::bigint, e.position
    FROM (SELECT 1) AS one
    LEFT JOIN event_stream_heads h ON h.workspace_id = p_workspace
    LEFT JOIN LATERAL (
      SELECT w.id, w.type, w.data, w.trace_id, w.created_at, w.position FROM webhook_events w
      WHERE p_after IS NOT NULL AND w.workspace_id = p_workspace AND w.position > p_after
        AND w.type = ANY(p_types) AND (p_agent IS NULL OR w.agent_id = p_agent) AND (p_since IS NULL OR w.created_at >= p_since)
      ORDER BY w.position
      LIMIT p_limit
    ) e ON true
    ORDER BY e.position;
END $$;
