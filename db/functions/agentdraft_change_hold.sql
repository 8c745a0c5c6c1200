-- agentdraft_change_hold: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0035_coordination_functions, 0044_engine_generic_plans.
--
-- Extends, commits or releases a hold (SPEC §4) in one statement. Returns {hold, events?,
-- deliveries, changed} or {error: {code, ...}} and changes nothing. p_ttl: extend's new TTL
-- (null: the hold's own, clamped to p_ttl_min..p_ttl_max). This version knows holds bound to a
-- pending approval (SPEC §12): they cannot be committed by the agent (the approval decides), and
-- extending one never shortens it below the approval's expiry.
-- (0035_coordination_functions.sql)
-- A hold that re-books a committed event (holds.rebooks_event_id, issue #32, 0061): committing it
-- needs that event still committed (else event_not_active), cancels it, and moves its provider
-- copies to the new event (same provider event id, pending, so the export work updates it in
-- place instead of adding a second one); its reconciliation is resolved (in_sync). Under the
-- calendar's lock, so two re-bookings of one event cannot both commit.
CREATE OR REPLACE FUNCTION agentdraft_change_hold(p_actor jsonb, p_hold_id text, p_action text, p_ttl integer, p_ttl_min integer, p_ttl_max integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_trace text := p_actor->>'trace_id';
  v_peek holds;
  h holds;
  v_live boolean;
  v_ttl int;
  v_event_ids text[];
  v_events jsonb := '[]';
  v_external jsonb;
  v_emitted jsonb;
  v_bound boolean;
  v_old calendar_events;
  v_moved jsonb := '[]';
BEGIN
  SELECT * INTO v_peek FROM holds WHERE id = p_hold_id AND workspace_id = v_ws;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found')); END IF;
  IF p_actor->>'type' = 'key' AND v_key_agent IS NOT NULL AND v_peek.agent_id IS DISTINCT FROM v_key_agent THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'forbidden'));
  END IF;
  -- Transitions that keep time busy queue with placements on the calendars' locks; releasing only frees time.
  IF p_action <> 'release' THEN
    PERFORM 1 FROM (SELECT x FROM unnest(v_peek.calendar_ids) AS x ORDER BY x) AS s(id)
      CROSS JOIN LATERAL (SELECT 1 FROM calendars c WHERE c.id = s.id AND c.workspace_id = v_ws OFFSET 0 FOR UPDATE) AS l;
  END IF;
  SELECT * INTO h FROM holds WHERE id = p_hold_id FOR UPDATE;
  v_live := h.status = 'held' AND h.expires_at > clock_timestamp();
  v_bound := h.approval_id IS NOT NULL AND EXISTS (SELECT 1 FROM approvals a WHERE a.id = h.approval_id AND a.status = 'pending');

  IF p_action = 'commit' AND h.status = 'committed' THEN
    SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY e.id), '[]') INTO v_events FROM calendar_events e WHERE e.hold_id = h.id;
    RETURN jsonb_build_object('hold', to_jsonb(h), 'events', v_events, 'deliveries', '[]'::jsonb, 'changed', false);
  END IF;
  IF p_action = 'release' AND h.status = 'released' THEN
    RETURN jsonb_build_object('hold', to_jsonb(h), 'deliveries', '[]'::jsonb, 'changed', false);
  END IF;
  IF NOT v_live THEN
    RETURN jsonb_build_object('error', CASE
      WHEN h.status = 'preempted' THEN jsonb_build_object('code', 'hold_preempted', 'hold', to_jsonb(h))
      WHEN h.status IN ('held', 'expired') THEN jsonb_build_object('code', 'hold_expired', 'hold', to_jsonb(h))
      ELSE jsonb_build_object('code', 'hold_not_active', 'hold', to_jsonb(h)) END);
  END IF;

  IF p_action = 'commit' AND v_bound THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'hold_awaiting_approval', 'approval_id', h.approval_id));
  END IF;

  IF p_action = 'extend' THEN
    v_ttl := coalesce(p_ttl, least(greatest(h.ttl_seconds, p_ttl_min), p_ttl_max));
    UPDATE holds SET ttl_seconds = v_ttl,
      expires_at = CASE WHEN v_bound THEN greatest(expires_at, clock_timestamp() + make_interval(secs => v_ttl)) ELSE clock_timestamp() + make_interval(secs => v_ttl) END
     WHERE id = h.id RETURNING * INTO h;
    PERFORM agentdraft_audit(p_actor, h.agent_id, 'hold.extended', 'hold', h.id,
      jsonb_build_object('ttl_seconds', v_ttl, 'expires_at', agentdraft_iso(h.expires_at)));
    RETURN jsonb_build_object('hold', to_jsonb(h), 'deliveries', '[]'::jsonb, 'changed', true);
  END IF;

  IF p_action = 'release' THEN
    UPDATE holds SET status = 'released', ended_at = clock_timestamp() WHERE id = h.id RETURNING * INTO h;
    v_emitted := agentdraft_emit(v_ws, 'hold.released', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h)), v_trace);
    PERFORM agentdraft_audit(p_actor, h.agent_id, 'hold.released', 'hold', h.id, '{}'::jsonb);
    RETURN jsonb_build_object('hold', to_jsonb(h), 'deliveries', v_emitted->'deliveries', 'changed', true);
  END IF;

  -- Commit. Busy time synced from Google after the hold was granted would double-book: refused, the hold stays held.
  SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'external_busy', 'id', b.id, 'calendar_id', b.calendar_id, 'source', b.source,
           'start_time', agentdraft_iso(b.start_time), 'end_time', agentdraft_iso(b.end_time)) ORDER BY b.start_time, b.id), '[]')
    INTO v_external FROM external_busy_intervals b
   WHERE b.calendar_id = ANY(h.calendar_ids) AND b.span && tstzrange(h.start_time, h.end_time, '[)');
  IF jsonb_array_length(v_external) > 0 THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'hold_conflict', 'conflicts', v_external));
  END IF;
  IF h.rebooks_event_id IS NOT NULL THEN
    SELECT * INTO v_old FROM calendar_events WHERE id = h.rebooks_event_id AND workspace_id = v_ws FOR UPDATE;
    IF NOT FOUND OR v_old.status <> 'confirmed' THEN
      RETURN jsonb_build_object('error', jsonb_build_object('code', 'event_not_active', 'event_id', h.rebooks_event_id));
    END IF;
    UPDATE calendar_events SET status = 'cancelled', cancelled_at = clock_timestamp() WHERE id = v_old.id RETURNING * INTO v_old;
  END IF;
  WITH ins AS (
    INSERT INTO calendar_events (id, workspace_id, calendar_id, hold_id, agent_id, start_time, end_time, status, metadata)
    SELECT agentdraft_new_id('evt'), h.workspace_id, c, h.id, h.agent_id, h.start_time, h.end_time, 'confirmed', h.metadata
    FROM unnest(h.calendar_ids) AS c
    RETURNING *
  ), exported AS (
    -- Linked calendars get their Google copy from the export work; queued here, so never lost.
    INSERT INTO google_event_exports (id, workspace_id, calendar_event_id, calendar_id, hold_id, link_id, google_calendar_id, google_event_id, desired)
    SELECT agentdraft_new_id('gexp'), ins.workspace_id, ins.id, ins.calendar_id, ins.hold_id, l.id, l.google_calendar_id,
           'agentdraft' || substr(encode(sha256(convert_to(ins.id, 'UTF8')), 'hex'), 1, 40), 'present'
    FROM ins JOIN google_calendar_links l ON l.calendar_id = ins.calendar_id
    ON CONFLICT DO NOTHING
    RETURNING id, workspace_id, link_id, next_attempt_at
  )
  SELECT coalesce(jsonb_agg(to_jsonb(ins) ORDER BY ins.id), '[]'), array_agg(ins.id ORDER BY ins.id),
         (SELECT coalesce(jsonb_agg(to_jsonb(exported)), '[]') FROM exported)
    INTO v_events, v_event_ids, v_external FROM ins;
  IF h.rebooks_event_id IS NOT NULL THEN
    -- The new event's own copies (just queued under fresh ids) give way to the old event's, which
    -- carry the provider event ids: those move to the new event and are written again in place.
    DELETE FROM google_event_exports n USING google_event_exports o
     WHERE n.calendar_event_id = ANY(v_event_ids) AND o.calendar_event_id = v_old.id AND o.desired = 'present'
       AND o.link_id IS NOT DISTINCT FROM n.link_id AND o.google_calendar_id = n.google_calendar_id;
    WITH moved AS (
      UPDATE google_event_exports o SET calendar_event_id = v_event_ids[1], hold_id = h.id, status = 'pending', attempts = 0,
             next_attempt_at = now(), leased_until = NULL, last_error = NULL, updated_at = now()
       WHERE o.calendar_event_id = v_old.id AND o.desired = 'present'
      RETURNING id, workspace_id, link_id, next_attempt_at
    )
    SELECT coalesce(jsonb_agg(to_jsonb(moved)), '[]') INTO v_moved FROM moved;
    v_external := (SELECT coalesce(jsonb_agg(x), '[]') FROM jsonb_array_elements(v_external) x
                    WHERE EXISTS (SELECT 1 FROM google_event_exports g WHERE g.id = x->>'id')) || v_moved;
    UPDATE event_reconciliations SET state = 'in_sync', changed = '["rebooked"]'::jsonb, conflicts = '[]'::jsonb, updated_at = clock_timestamp()
     WHERE calendar_event_id = v_old.id;
    PERFORM agentdraft_audit(p_actor, h.agent_id, 'event.rebooked', 'event', v_old.id,
      jsonb_build_object('hold_id', h.id, 'event_id', v_event_ids[1], 'start_time', agentdraft_iso(h.start_time), 'end_time', agentdraft_iso(h.end_time),
                         'moved_exports', (SELECT coalesce(jsonb_agg(x->>'id'), '[]') FROM jsonb_array_elements(v_moved) x)));
  END IF;
  UPDATE holds SET status = 'committed', ended_at = clock_timestamp() WHERE id = h.id RETURNING * INTO h;
  v_emitted := agentdraft_emit(v_ws, 'hold.committed', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h, v_event_ids)), v_trace);
  PERFORM agentdraft_audit(p_actor, h.agent_id, 'hold.committed', 'hold', h.id, jsonb_build_object('event_ids', to_jsonb(v_event_ids)));
  RETURN jsonb_build_object('hold', to_jsonb(h), 'events', v_events, 'exports', v_external, 'deliveries', v_emitted->'deliveries', 'changed', true);
END $function$;
