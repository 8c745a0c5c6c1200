-- agentdraft_event_head: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0054_stream_positions.
--
-- A workspace's stream head, after sealing everything it has committed.
-- (0054_stream_positions.sql)
CREATE OR REPLACE FUNCTION agentdraft_event_head(p_workspace text)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
BEGIN
  LOOP
    EXIT WHEN agentdraft_seal_events(p_workspace, 5000) < 5000;
  END LOOP;
  RETURN coalesce((SELECT h.position FROM event_stream_heads h WHERE h.workspace_id = p_workspace), 0);
END $function$;
