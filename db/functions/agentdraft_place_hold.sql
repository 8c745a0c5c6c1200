-- agentdraft_place_hold: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0035_coordination_functions, 0043_refusals_write_nothing, 0044_engine_generic_plans.
--
-- A refused placement writes nothing (SPEC §11). agentdraft_place_hold (0035) locked the
-- calendars' rows before its checks, so every refusal took a row lock: a transaction id, a WAL
-- record and, at commit, a wait for the WAL flush while later placements queued on the lock.
-- This version checks once without the lock and refuses on what it sees; only a placement with
-- no conflict in sight takes the locks and checks again, exactly as before. Same arguments,
-- same answers (external busy time names its own source, google or microsoft, as since 0042).
-- (0043_refusals_write_nothing.sql)
-- p_rebooks (issue #32, 0061): the committed event this hold re-books, or null. Its own time is not a
-- conflict; the hold must be on that event's one calendar, by its agent; under the lock the event must
-- still be committed and no other live hold may re-book it (rebook_refused: rebook_in_progress).
CREATE OR REPLACE FUNCTION agentdraft_place_hold(p_actor jsonb, p_id text, p_calendar_ids text[], p_start timestamp with time zone, p_end timestamp with time zone, p_priority integer, p_ttl integer, p_metadata jsonb, p_rebooks text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_agent text := p_actor->>'agent_id';
  v_trace text := p_actor->>'trace_id';
  v_span tstzrange := tstzrange(p_start, p_end, '[)');
  v_locked int;
  v_events jsonb;
  v_external jsonb;
  v_winners jsonb;
  v_hold holds;
  r holds;
  v_preempted jsonb := '[]';
  v_preempted_ids text[] := '{}';
  v_deliveries jsonb := '[]';
  v_emitted jsonb;
  v_max int;
  v_floor int;
  v_can_preempt boolean;
  v_pass int;
  v_old calendar_events;
BEGIN
  IF v_agent IS NOT NULL THEN
    SELECT max_priority INTO v_max FROM agents WHERE id = v_agent AND workspace_id = v_ws;
    IF p_priority > coalesce(v_max, 100) THEN
      RETURN jsonb_build_object('priority_above_ceiling', jsonb_build_object('max_priority', v_max));
    END IF;
  END IF;
  -- A re-booking (issue #32) names a committed event of its own agent, on the one calendar it asks for.
  IF p_rebooks IS NOT NULL THEN
    SELECT * INTO v_old FROM calendar_events WHERE id = p_rebooks AND workspace_id = v_ws;
    IF NOT FOUND OR (v_agent IS NOT NULL AND v_old.agent_id IS DISTINCT FROM v_agent) THEN
      RETURN jsonb_build_object('rebook_refused', jsonb_build_object('code', 'not_found'));
    END IF;
    IF p_calendar_ids <> ARRAY[v_old.calendar_id] THEN
      RETURN jsonb_build_object('rebook_refused', jsonb_build_object('code', 'calendar_mismatch', 'calendar_id', v_old.calendar_id));
    END IF;
  END IF;
  SELECT hold_preempt_min_priority INTO v_floor FROM workspaces WHERE id = v_ws;
  v_can_preempt := p_priority >= coalesce(v_floor, 0);
  -- Two passes over the same checks. The first takes no lock: a conflict it sees had been
  -- committed when it was read, so refusing is the answer the placement would have had at that
  -- instant, and a refusal (most attempts on a contended calendar) writes nothing, assigns no
  -- transaction id and waits for no WAL flush. Only a placement that may be granted goes on to
  -- lock the calendars and check again under the locks.
  FOR v_pass IN 1..2 LOOP
    IF v_pass = 2 THEN
      -- Locks in sorted id order (the caller sorts), so multi-calendar holds never deadlock.
      PERFORM 1 FROM (SELECT x FROM unnest(p_calendar_ids) AS x ORDER BY x) AS s(id)
        CROSS JOIN LATERAL (SELECT 1 FROM calendars c WHERE c.id = s.id AND c.workspace_id = v_ws OFFSET 0 FOR UPDATE) AS l;
      GET DIAGNOSTICS v_locked = ROW_COUNT;
      IF v_locked <> cardinality(p_calendar_ids) THEN
        RETURN jsonb_build_object('missing_calendar',
          (SELECT x FROM unnest(p_calendar_ids) AS x WHERE NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = x AND c.workspace_id = v_ws) ORDER BY x LIMIT 1));
      END IF;
      -- Under the calendar's lock: the event is still committed and no other live hold re-books it (one re-booking at a time).
      IF p_rebooks IS NOT NULL THEN
        IF NOT EXISTS (SELECT 1 FROM calendar_events WHERE id = p_rebooks AND status = 'confirmed') THEN
          RETURN jsonb_build_object('rebook_refused', jsonb_build_object('code', 'event_not_active'));
        END IF;
        SELECT * INTO v_hold FROM holds WHERE rebooks_event_id = p_rebooks AND workspace_id = v_ws AND status = 'held' AND expires_at > clock_timestamp() LIMIT 1;
        IF FOUND THEN
          RETURN jsonb_build_object('rebook_refused', jsonb_build_object('code', 'rebook_in_progress', 'hold_id', v_hold.id));
        END IF;
      END IF;
    ELSIF EXISTS (SELECT 1 FROM unnest(p_calendar_ids) AS x WHERE NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = x AND c.workspace_id = v_ws OFFSET 0)) THEN
      CONTINUE; -- a calendar is missing: the locked pass names it
    END IF;

    SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'event', 'id', e.id, 'calendar_id', e.calendar_id,
             'start_time', agentdraft_iso(e.start_time), 'end_time', agentdraft_iso(e.end_time)) ORDER BY e.start_time, e.id), '[]')
      INTO v_events FROM unnest(p_calendar_ids) AS x(id)
      CROSS JOIN LATERAL (SELECT * FROM calendar_events ce WHERE ce.calendar_id = x.id AND ce.status = 'confirmed' AND ce.span && v_span AND ce.id IS DISTINCT FROM p_rebooks OFFSET 0) AS e;
    SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'external_busy', 'id', b.id, 'calendar_id', b.calendar_id, 'source', b.source,
             'start_time', agentdraft_iso(b.start_time), 'end_time', agentdraft_iso(b.end_time)) ORDER BY b.start_time, b.id), '[]')
      INTO v_external FROM external_busy_intervals b
     WHERE b.calendar_id = ANY(p_calendar_ids) AND b.span && v_span;
    SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'hold', 'id', h.id, 'calendar_ids', to_jsonb(h.calendar_ids), 'agent_id', h.agent_id,
             'priority', h.priority, 'start_time', agentdraft_iso(h.start_time), 'end_time', agentdraft_iso(h.end_time),
             'expires_at', agentdraft_iso(h.expires_at)) ORDER BY h.priority DESC, h.id), '[]')
      INTO v_winners FROM holds h
     WHERE h.workspace_id = v_ws AND h.calendar_ids && p_calendar_ids AND h.status = 'held' AND h.expires_at > clock_timestamp()
       AND tstzrange(h.start_time, h.end_time, '[)') && v_span AND (h.priority >= p_priority OR NOT v_can_preempt);
    IF jsonb_array_length(v_events) > 0 OR jsonb_array_length(v_external) > 0 OR jsonb_array_length(v_winners) > 0 THEN
      RETURN jsonb_build_object('conflicts', jsonb_build_object('events', v_events, 'external', v_external, 'holds', v_winners));
    END IF;
  END LOOP;

  -- Every other live hold in the way has a strictly lower priority: preempted.
  FOR r IN
    UPDATE holds SET status = 'preempted', preempted_by = p_id, preempted_by_priority = p_priority, ended_at = clock_timestamp()
     WHERE workspace_id = v_ws AND calendar_ids && p_calendar_ids AND status = 'held' AND expires_at > clock_timestamp()
       AND tstzrange(start_time, end_time, '[)') && v_span AND priority < p_priority
    RETURNING *
  LOOP
    v_preempted := v_preempted || to_jsonb(r);
    v_preempted_ids := v_preempted_ids || r.id;
    v_emitted := agentdraft_emit(v_ws, 'hold.preempted', r.agent_id,
      jsonb_build_object('hold', agentdraft_hold_json(r), 'preempted_by', jsonb_build_object('hold_id', p_id, 'priority', p_priority)), v_trace);
    v_deliveries := v_deliveries || (v_emitted->'deliveries');
    PERFORM agentdraft_audit(p_actor, r.agent_id, 'hold.preempted', 'hold', r.id,
      jsonb_build_object('preempted_by', p_id, 'preempting_priority', p_priority, 'priority', r.priority));
  END LOOP;

  INSERT INTO holds (id, workspace_id, calendar_ids, agent_id, api_key_id, start_time, end_time, priority, ttl_seconds, status, expires_at, metadata, rebooks_event_id)
  VALUES (p_id, v_ws, p_calendar_ids, v_agent, p_actor->>'id', p_start, p_end, p_priority, p_ttl, 'held',
          clock_timestamp() + make_interval(secs => p_ttl), p_metadata, p_rebooks)
  RETURNING * INTO v_hold;
  v_emitted := agentdraft_emit(v_ws, 'hold.created', v_agent, jsonb_build_object('hold', agentdraft_hold_json(v_hold)), v_trace);
  v_deliveries := v_deliveries || (v_emitted->'deliveries');
  PERFORM agentdraft_audit(p_actor, v_agent, 'hold.created', 'hold', p_id, jsonb_build_object(
    'calendar_ids', to_jsonb(p_calendar_ids), 'start_time', agentdraft_iso(p_start), 'end_time', agentdraft_iso(p_end),
    'priority', p_priority, 'ttl_seconds', p_ttl, 'preempted', to_jsonb(v_preempted_ids)));
  RETURN jsonb_build_object('hold', to_jsonb(v_hold), 'preempted', v_preempted, 'deliveries', v_deliveries);
END $function$;

-- The eight-argument form (no re-booking), kept while a deployment still calls it (CONTRIBUTING.md).
CREATE OR REPLACE FUNCTION agentdraft_place_hold(p_actor jsonb, p_id text, p_calendar_ids text[], p_start timestamp with time zone, p_end timestamp with time zone, p_priority integer, p_ttl integer, p_metadata jsonb)
 RETURNS jsonb
 LANGUAGE sql
AS $function$
  SELECT agentdraft_place_hold(p_actor, p_id, p_calendar_ids, p_start, p_end, p_priority, p_ttl, p_metadata, NULL::text)
$function$;
