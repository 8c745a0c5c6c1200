-- agentdraft_read_events: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0054_stream_positions.
--
-- One read of a workspace's stream (lib/domains/events/read-events.ts), in one round trip: seals what has
-- committed (at most 5000 events; `more` says a backlog is left), then the events after p_after
-- (null: none, only the head) that pass the filter, in position order, and the head, all seen by
-- one statement's snapshot. One row with a null id when there are none.
-- (0054_stream_positions.sql)
CREATE OR REPLACE FUNCTION agentdraft_read_events(p_workspace text, p_after bigint, p_types text[], p_agent text, p_since timestamp with time zone, p_limit integer)
 RETURNS TABLE(head bigint, more boolean, id text, type text, data jsonb, trace_id text, created_ms bigint, event_position bigint)
 LANGUAGE plpgsql
AS $function$
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
END $function$;
