-- The conflict engine finds each named calendar's rows by its key, whatever the plan (SPEC §11).
-- Under the generic plans of 0044 two statements read far more than they needed:
--  - the confirmed-event check (`calendar_id = ANY(...) AND span && ...`) could use only the span
--    in the exclusion constraint's GiST index (GiST takes no array of keys), so it visited every
--    confirmed event of every workspace at that time and filtered by calendar: a busy tenant's
--    2 pm slowed every other tenant's 2 pm;
--  - the calendars' locks (`workspace_id = ... AND id = ANY(...) FOR UPDATE`) scanned every
--    calendar of the workspace to lock one, and so did the first pass's check that each named
--    calendar is in the workspace (0044), which the planner turned into an anti-join over them all.
-- Both now go calendar by calendar (unnest, then a lookup per id that the planner cannot fold back
-- into the array form), in sorted id order, so multi-calendar locks still never deadlock. Same
-- arguments, same answers. The functions are rewritten in place from their current bodies.
DO $$
DECLARE
  v_def text;
  v_lock_old text := 'PERFORM 1 FROM calendars WHERE workspace_id = v_ws AND id = ANY(p_calendar_ids) ORDER BY id FOR UPDATE;';
  v_lock_new text := 'PERFORM 1 FROM (SELECT x FROM unnest(p_calendar_ids) AS x ORDER BY x) AS s(id)
        CROSS JOIN LATERAL (SELECT 1 FROM calendars c WHERE c.id = s.id AND c.workspace_id = v_ws OFFSET 0 FOR UPDATE) AS l;';
  v_events_old text := 'INTO v_events FROM calendar_events e
     WHERE e.calendar_id = ANY(p_calendar_ids) AND e.status = ''confirmed'' AND e.span && v_span;';
  v_events_new text := 'INTO v_events FROM unnest(p_calendar_ids) AS x(id)
      CROSS JOIN LATERAL (SELECT * FROM calendar_events ce WHERE ce.calendar_id = x.id AND ce.status = ''confirmed'' AND ce.span && v_span OFFSET 0) AS e;';
  v_exists_old text := 'ELSIF EXISTS (SELECT 1 FROM unnest(p_calendar_ids) AS x WHERE NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = x AND c.workspace_id = v_ws)) THEN';
  v_exists_new text := 'ELSIF EXISTS (SELECT 1 FROM unnest(p_calendar_ids) AS x WHERE NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = x AND c.workspace_id = v_ws OFFSET 0)) THEN';
  v_change_old text := 'PERFORM 1 FROM calendars WHERE workspace_id = v_ws AND id = ANY(v_peek.calendar_ids) ORDER BY id FOR UPDATE;';
  v_change_new text := 'PERFORM 1 FROM (SELECT x FROM unnest(v_peek.calendar_ids) AS x ORDER BY x) AS s(id)
      CROSS JOIN LATERAL (SELECT 1 FROM calendars c WHERE c.id = s.id AND c.workspace_id = v_ws OFFSET 0 FOR UPDATE) AS l;';
BEGIN
  v_def := pg_get_functiondef('agentdraft_place_hold'::regproc);
  IF position(v_lock_old IN v_def) = 0 OR position(v_events_old IN v_def) = 0 OR position(v_exists_old IN v_def) = 0 THEN
    RAISE EXCEPTION 'agentdraft_place_hold is not the body 0044 left: rewrite this migration against the current one';
  END IF;
  EXECUTE replace(replace(replace(v_def, v_lock_old, v_lock_new), v_events_old, v_events_new), v_exists_old, v_exists_new);
  v_def := pg_get_functiondef('agentdraft_change_hold'::regproc);
  IF position(v_change_old IN v_def) = 0 THEN
    RAISE EXCEPTION 'agentdraft_change_hold is not the body 0044 left: rewrite this migration against the current one';
  END IF;
  EXECUTE replace(v_def, v_change_old, v_change_new);
END
$$;
