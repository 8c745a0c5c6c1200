-- The coordination primitives (SPEC §12) as single statements, like the conflict engine (0020,
-- 0021): priority ceilings and the preemption floor in placing a hold, holds bound to an
-- approval, leases with fencing tokens, message claims.

-- Places a hold (SPEC §4), all or nothing over its calendars; this version adds the priority
-- ceiling of the key's agent and the workspace's preemption floor (SPEC §12). p_actor: {workspace_id, type,
-- id, agent_id, trace_id, request_id}. Returns {hold, preempted[], deliveries[]}, or
-- {missing_calendar}, {priority_above_ceiling: {max_priority}} or {conflicts: {events, external,
-- holds}} and changes nothing. Below the workspace's hold_preempt_min_priority a hold never
-- preempts: lower-priority live holds in the way are conflicts then.
CREATE OR REPLACE FUNCTION agentdraft_place_hold(p_actor jsonb, p_id text, p_calendar_ids text[], p_start timestamptz, p_end timestamptz,
  p_priority int, p_ttl int, p_metadata jsonb)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
BEGIN
  IF v_agent IS NOT NULL THEN
    SELECT max_priority INTO v_max FROM agents WHERE id = v_agent AND workspace_id = v_ws;
    IF p_priority > coalesce(v_max, 100) THEN
      RETURN jsonb_build_object('priority_above_ceiling', jsonb_build_object('max_priority', v_max));
    END IF;
  END IF;
  SELECT hold_preempt_min_priority INTO v_floor FROM workspaces WHERE id = v_ws;
  v_can_preempt := p_priority >= coalesce(v_floor, 0);
  -- Locks in sorted id order (the caller sorts), so multi-calendar holds never deadlock.
  PERFORM 1 FROM calendars WHERE workspace_id = v_ws AND id = ANY(p_calendar_ids) ORDER BY id FOR UPDATE;
  GET DIAGNOSTICS v_locked = ROW_COUNT;
  IF v_locked <> cardinality(p_calendar_ids) THEN
    RETURN jsonb_build_object('missing_calendar',
      (SELECT x FROM unnest(p_calendar_ids) AS x WHERE NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = x AND c.workspace_id = v_ws) ORDER BY x LIMIT 1));
  END IF;

  SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'event', 'id', e.id, 'calendar_id', e.calendar_id,
           'start_time', agentdraft_iso(e.start_time), 'end_time', agentdraft_iso(e.end_time)) ORDER BY e.start_time, e.id), '[]')
    INTO v_events FROM calendar_events e
   WHERE e.calendar_id = ANY(p_calendar_ids) AND e.status = 'confirmed' AND e.span && v_span;
  SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'external_busy', 'id', b.id, 'calendar_id', b.calendar_id, 'source', 'google',
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

  INSERT INTO holds (id, workspace_id, calendar_ids, agent_id, api_key_id, start_time, end_time, priority, ttl_seconds, status, expires_at, metadata)
  VALUES (p_id, v_ws, p_calendar_ids, v_agent, p_actor->>'id', p_start, p_end, p_priority, p_ttl, 'held',
          clock_timestamp() + make_interval(secs => p_ttl), p_metadata)
  RETURNING * INTO v_hold;
  v_emitted := agentdraft_emit(v_ws, 'hold.created', v_agent, jsonb_build_object('hold', agentdraft_hold_json(v_hold)), v_trace);
  v_deliveries := v_deliveries || (v_emitted->'deliveries');
  PERFORM agentdraft_audit(p_actor, v_agent, 'hold.created', 'hold', p_id, jsonb_build_object(
    'calendar_ids', to_jsonb(p_calendar_ids), 'start_time', agentdraft_iso(p_start), 'end_time', agentdraft_iso(p_end),
    'priority', p_priority, 'ttl_seconds', p_ttl, 'preempted', to_jsonb(v_preempted_ids)));
  RETURN jsonb_build_object('hold', to_jsonb(v_hold), 'preempted', v_preempted, 'deliveries', v_deliveries);
END $$;
--> statement-breakpoint
-- Extends, commits or releases a hold (SPEC §4) in one statement. Returns {hold, events?,
-- deliveries, changed} or {error: {code, ...}} and changes nothing. p_ttl: extend's new TTL
-- (null: the hold's own, clamped to p_ttl_min..p_ttl_max). This version knows holds bound to a
-- pending approval (SPEC §12): they cannot be committed by the agent (the approval decides), and
-- extending one never shortens it below the approval's expiry.
CREATE OR REPLACE FUNCTION agentdraft_change_hold(p_actor jsonb, p_hold_id text, p_action text, p_ttl int, p_ttl_min int, p_ttl_max int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
BEGIN
  SELECT * INTO v_peek FROM holds WHERE id = p_hold_id AND workspace_id = v_ws;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found')); END IF;
  IF p_actor->>'type' = 'key' AND v_key_agent IS NOT NULL AND v_peek.agent_id IS DISTINCT FROM v_key_agent THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'forbidden'));
  END IF;
  -- Transitions that keep time busy queue with placements on the calendars' locks; releasing only frees time.
  IF p_action <> 'release' THEN
    PERFORM 1 FROM calendars WHERE workspace_id = v_ws AND id = ANY(v_peek.calendar_ids) ORDER BY id FOR UPDATE;
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
  SELECT coalesce(jsonb_agg(jsonb_build_object('type', 'external_busy', 'id', b.id, 'calendar_id', b.calendar_id, 'source', 'google',
           'start_time', agentdraft_iso(b.start_time), 'end_time', agentdraft_iso(b.end_time)) ORDER BY b.start_time, b.id), '[]')
    INTO v_external FROM external_busy_intervals b
   WHERE b.calendar_id = ANY(h.calendar_ids) AND b.span && tstzrange(h.start_time, h.end_time, '[)');
  IF jsonb_array_length(v_external) > 0 THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'hold_conflict', 'conflicts', v_external));
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
  UPDATE holds SET status = 'committed', ended_at = clock_timestamp() WHERE id = h.id RETURNING * INTO h;
  v_emitted := agentdraft_emit(v_ws, 'hold.committed', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h, v_event_ids)), v_trace);
  PERFORM agentdraft_audit(p_actor, h.agent_id, 'hold.committed', 'hold', h.id, jsonb_build_object('event_ids', to_jsonb(v_event_ids)));
  RETURN jsonb_build_object('hold', to_jsonb(h), 'events', v_events, 'exports', v_external, 'deliveries', v_emitted->'deliveries', 'changed', true);
END $$;
--> statement-breakpoint
-- A hold as the API serializes it, now with the approval it waits for (lib/holds/serialize.ts; a test keeps them equal).
CREATE OR REPLACE FUNCTION agentdraft_hold_json(h holds, p_event_ids text[] DEFAULT '{}') RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', h.id, 'object', 'hold', 'calendar_ids', to_jsonb(h.calendar_ids), 'agent_id', h.agent_id,
    'start_time', agentdraft_iso(h.start_time), 'end_time', agentdraft_iso(h.end_time), 'priority', h.priority,
    'status', CASE WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN 'expired' ELSE h.status END,
    'hold_ttl_seconds', h.ttl_seconds, 'expires_at', agentdraft_iso(h.expires_at), 'metadata', h.metadata,
    'preempted_by', CASE WHEN h.preempted_by IS NULL THEN NULL ELSE jsonb_build_object('hold_id', h.preempted_by, 'priority', coalesce(h.preempted_by_priority, 0)) END,
    'approval_id', h.approval_id,
    'event_ids', to_jsonb(p_event_ids), 'created_at', agentdraft_iso(h.created_at),
    'ended_at', CASE WHEN h.ended_at IS NOT NULL THEN agentdraft_iso(h.ended_at)
                     WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN agentdraft_iso(h.expires_at) END)
$$;
--> statement-breakpoint
-- Records one hold's expiry (0021), except a hold bound to a still-pending approval: that
-- approval's own expiry releases it (its expires_at is the approval's, so it is dead either way).
CREATE OR REPLACE FUNCTION agentdraft_expire_hold(p_hold_id text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  h holds;
  v_emitted jsonb;
BEGIN
  UPDATE holds SET status = 'expired', ended_at = expires_at
   WHERE id = p_hold_id AND status = 'held' AND expires_at <= clock_timestamp()
     AND NOT (approval_id IS NOT NULL AND EXISTS (SELECT 1 FROM approvals a WHERE a.id = holds.approval_id AND a.status = 'pending'))
  RETURNING * INTO h;
  IF NOT FOUND THEN RETURN NULL; END IF;
  v_emitted := agentdraft_emit(h.workspace_id, 'hold.expired', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h)), NULL);
  PERFORM agentdraft_audit(jsonb_build_object('workspace_id', h.workspace_id, 'type', 'system', 'id', 'hold-expiry'), h.agent_id, 'hold.expired', 'hold', h.id,
    jsonb_build_object('expired_at', agentdraft_iso(h.expires_at)));
  RETURN jsonb_build_object('hold', to_jsonb(h), 'deliveries', v_emitted->'deliveries');
END $$;
--> statement-breakpoint
-- Binds live holds to a pending approval (SPEC §12), the last statement of the approval's
-- transaction: under the calendars' locks (so no placement sees a hold die that is about to
-- be kept), each hold must be live, of the workspace, the key's agent's own (agent-bound keys)
-- and not bound to another pending approval; its expires_at becomes the approval's. Returns
-- {holds} or {error: {code, hold_id}} (the caller rolls back).
CREATE OR REPLACE FUNCTION agentdraft_bind_holds(p_actor jsonb, p_approval_id text, p_hold_ids text[])
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_expires timestamptz;
  v_bad text;
  v_out jsonb;
BEGIN
  SELECT expires_at INTO v_expires FROM approvals WHERE id = p_approval_id AND workspace_id = v_ws;
  PERFORM 1 FROM calendars WHERE workspace_id = v_ws
     AND id IN (SELECT unnest(h.calendar_ids) FROM holds h WHERE h.workspace_id = v_ws AND h.id = ANY(p_hold_ids))
   ORDER BY id FOR UPDATE;
  SELECT x INTO v_bad FROM unnest(p_hold_ids) AS x
   WHERE NOT EXISTS (SELECT 1 FROM holds h WHERE h.id = x AND h.workspace_id = v_ws AND (v_key_agent IS NULL OR h.agent_id = v_key_agent))
   ORDER BY x LIMIT 1;
  IF v_bad IS NOT NULL THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found', 'hold_id', v_bad)); END IF;
  SELECT h.id INTO v_bad FROM holds h WHERE h.id = ANY(p_hold_ids) AND NOT (h.status = 'held' AND h.expires_at > clock_timestamp()) ORDER BY h.id LIMIT 1;
  IF v_bad IS NOT NULL THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'hold_not_live', 'hold_id', v_bad)); END IF;
  SELECT h.id INTO v_bad FROM holds h JOIN approvals a ON a.id = h.approval_id
   WHERE h.id = ANY(p_hold_ids) AND a.status = 'pending' AND a.id <> p_approval_id ORDER BY h.id LIMIT 1;
  IF v_bad IS NOT NULL THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'hold_already_bound', 'hold_id', v_bad)); END IF;
  WITH u AS (
    UPDATE holds SET approval_id = p_approval_id, expires_at = greatest(expires_at, v_expires)
     WHERE id = ANY(p_hold_ids) RETURNING *
  ) SELECT coalesce(jsonb_agg(to_jsonb(u) ORDER BY u.id), '[]') INTO v_out FROM u;
  RETURN jsonb_build_object('holds', v_out);
END $$;
--> statement-breakpoint
-- Settles the holds bound to an approval as it resolves (SPEC §12), in the resolving
-- transaction: approved → committed (on_approve 'commit') or kept with a fresh TTL ('hold');
-- denied, expired or cancelled → released. Every calendar involved is locked first, in id
-- order. A hold no longer live (preempted, released by its agent) is reported as it is. The
-- outcomes are added to the approval.resolved event (p_event_id) and returned with the
-- deliveries, Google exports and kept holds for the caller to announce after commit.
CREATE OR REPLACE FUNCTION agentdraft_settle_bound_holds(p_actor jsonb, p_approval_id text, p_status text, p_event_id text, p_ttl_min int, p_ttl_max int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  a approvals;
  h holds;
  v_action text;
  v_changed jsonb;
  v_outcomes jsonb := '[]';
  v_deliveries jsonb := '[]';
  v_exports jsonb := '[]';
  v_kept jsonb := '[]';
  v_settled text[] := '{}';
BEGIN
  SELECT * INTO a FROM approvals WHERE id = p_approval_id AND workspace_id = v_ws;
  IF NOT FOUND OR cardinality(a.hold_ids) = 0 THEN RETURN jsonb_build_object('holds', '[]'::jsonb, 'deliveries', '[]'::jsonb, 'exports', '[]'::jsonb, 'kept', '[]'::jsonb, 'settled', '[]'::jsonb); END IF;
  PERFORM 1 FROM calendars WHERE workspace_id = v_ws
     AND id IN (SELECT unnest(x.calendar_ids) FROM holds x WHERE x.approval_id = a.id)
   ORDER BY id FOR UPDATE;
  v_action := CASE WHEN p_status <> 'approved' THEN 'release' WHEN a.on_approve = 'hold' THEN 'extend' ELSE 'commit' END;
  FOR h IN SELECT * FROM holds WHERE approval_id = a.id AND workspace_id = v_ws ORDER BY id LOOP
    IF h.status = 'held' AND h.expires_at <= clock_timestamp() THEN
      -- Its life was the approval's, which just ran out: recorded released (not expired), as the approval says.
      UPDATE holds SET status = 'released', ended_at = expires_at WHERE id = h.id RETURNING * INTO h;
      v_changed := agentdraft_emit(v_ws, 'hold.released', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h)), p_actor->>'trace_id');
      PERFORM agentdraft_audit(p_actor, h.agent_id, 'hold.released', 'hold', h.id, jsonb_build_object('approval_id', a.id, 'approval_status', p_status));
      v_deliveries := v_deliveries || (v_changed->'deliveries');
      v_settled := v_settled || h.id;
      v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', 'released', 'preempted_by', NULL, 'event_ids', '[]'::jsonb);
      CONTINUE;
    END IF;
    IF NOT (h.status = 'held' AND h.expires_at > clock_timestamp()) THEN
      v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', CASE WHEN h.status = 'held' THEN 'expired' ELSE h.status END,
        'preempted_by', CASE WHEN h.preempted_by IS NULL THEN NULL ELSE jsonb_build_object('hold_id', h.preempted_by, 'priority', coalesce(h.preempted_by_priority, 0)) END);
      CONTINUE;
    END IF;
    v_changed := agentdraft_change_hold(p_actor, h.id, v_action, NULL, p_ttl_min, p_ttl_max);
    IF v_changed ? 'error' THEN
      -- Only a commit can be refused here: busy time synced from Google since; the hold is kept for its agent to re-plan.
      PERFORM agentdraft_change_hold(p_actor, h.id, 'extend', NULL, p_ttl_min, p_ttl_max);
      v_kept := v_kept || jsonb_build_object('id', h.id, 'workspace_id', h.workspace_id, 'expires_at', (SELECT x.expires_at FROM holds x WHERE x.id = h.id));
      v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', 'commit_refused', 'preempted_by', NULL, 'conflicts', v_changed->'error'->'conflicts');
      CONTINUE;
    END IF;
    v_deliveries := v_deliveries || coalesce(v_changed->'deliveries', '[]');
    v_exports := v_exports || coalesce(v_changed->'exports', '[]');
    IF v_action = 'extend' THEN
      v_kept := v_kept || jsonb_build_object('id', h.id, 'workspace_id', h.workspace_id, 'expires_at', v_changed->'hold'->'expires_at');
    ELSE
      v_settled := v_settled || h.id;
    END IF;
    v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', CASE v_action WHEN 'commit' THEN 'committed' WHEN 'extend' THEN 'held' ELSE 'released' END,
      'preempted_by', NULL, 'event_ids', coalesce((SELECT jsonb_agg(e->'id' ORDER BY e->>'id') FROM jsonb_array_elements(v_changed->'events') e), '[]'));
  END LOOP;
  IF p_event_id IS NOT NULL THEN
    UPDATE webhook_events SET data = data || jsonb_build_object('holds', v_outcomes) WHERE id = p_event_id;
  END IF;
  RETURN jsonb_build_object('holds', v_outcomes, 'deliveries', v_deliveries, 'exports', v_exports, 'kept', v_kept, 'settled', to_jsonb(v_settled));
END $$;
--> statement-breakpoint
-- A lease as the API serializes it (lib/leases/serialize.ts serializeLease; a test keeps them equal).
CREATE OR REPLACE FUNCTION agentdraft_lease_json(l leases) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', l.id, 'object', 'lease', 'resource', l.resource, 'agent_id', l.agent_id, 'fencing_token', l.fencing_token,
    'priority', l.priority,
    'status', CASE WHEN l.status = 'active' AND l.expires_at <= clock_timestamp() THEN 'expired' ELSE l.status END,
    'ttl_seconds', l.ttl_seconds, 'expires_at', agentdraft_iso(l.expires_at), 'metadata', l.metadata,
    'renewed_at', CASE WHEN l.renewed_at IS NULL THEN NULL ELSE agentdraft_iso(l.renewed_at) END,
    'created_at', agentdraft_iso(l.created_at),
    'ended_at', CASE WHEN l.ended_at IS NOT NULL THEN agentdraft_iso(l.ended_at)
                     WHEN l.status = 'active' AND l.expires_at <= clock_timestamp() THEN agentdraft_iso(l.expires_at) END)
$$;
--> statement-breakpoint
-- Records a lease's expiry (status, lease.expired, audit) if it is active and past its TTL; null otherwise.
CREATE OR REPLACE FUNCTION agentdraft_expire_lease(p_lease_id text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  l leases;
  v_emitted jsonb;
BEGIN
  UPDATE leases SET status = 'expired', ended_at = expires_at
   WHERE id = p_lease_id AND status = 'active' AND expires_at <= clock_timestamp()
  RETURNING * INTO l;
  IF NOT FOUND THEN RETURN NULL; END IF;
  v_emitted := agentdraft_emit(l.workspace_id, 'lease.expired', l.agent_id, jsonb_build_object('lease', agentdraft_lease_json(l)), NULL);
  PERFORM agentdraft_audit(jsonb_build_object('workspace_id', l.workspace_id, 'type', 'system', 'id', 'lease-expiry'), l.agent_id, 'lease.expired', 'lease', l.id,
    jsonb_build_object('resource', l.resource, 'fencing_token', l.fencing_token, 'expired_at', agentdraft_iso(l.expires_at)));
  RETURN jsonb_build_object('lease', to_jsonb(l), 'deliveries', v_emitted->'deliveries');
END $$;
--> statement-breakpoint
-- Acquires an exclusive lease on a named resource (SPEC §12) in one statement: the resource's
-- row is created if new and locked; a live lease refuses it ({conflict}); a lease past its TTL is
-- recorded expired first; the fencing token is the resource's last plus one. Leases do not
-- preempt one another whatever their priority; the agent's priority ceiling applies. Returns
-- {lease, deliveries} or {priority_above_ceiling} or {conflict} and changes nothing.
CREATE OR REPLACE FUNCTION agentdraft_acquire_lease(p_actor jsonb, p_id text, p_resource text, p_ttl int, p_priority int, p_metadata jsonb)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_agent text := p_actor->>'agent_id';
  v_max int;
  v_token bigint;
  v_live leases;
  r leases;
  l leases;
  v_deliveries jsonb := '[]';
  v_emitted jsonb;
BEGIN
  IF v_agent IS NOT NULL THEN
    SELECT max_priority INTO v_max FROM agents WHERE id = v_agent AND workspace_id = v_ws;
    IF p_priority > coalesce(v_max, 100) THEN
      RETURN jsonb_build_object('priority_above_ceiling', jsonb_build_object('max_priority', v_max));
    END IF;
  END IF;
  INSERT INTO lease_resources (workspace_id, resource) VALUES (v_ws, p_resource) ON CONFLICT DO NOTHING;
  SELECT last_fencing_token INTO v_token FROM lease_resources WHERE workspace_id = v_ws AND resource = p_resource FOR UPDATE;
  SELECT * INTO v_live FROM leases WHERE workspace_id = v_ws AND resource = p_resource AND status = 'active' AND expires_at > clock_timestamp();
  IF FOUND THEN
    RETURN jsonb_build_object('conflict', jsonb_build_object('lease_id', v_live.id, 'agent_id', v_live.agent_id, 'priority', v_live.priority,
      'fencing_token', v_live.fencing_token, 'expires_at', agentdraft_iso(v_live.expires_at)));
  END IF;
  FOR r IN SELECT id FROM leases WHERE workspace_id = v_ws AND resource = p_resource AND status = 'active' LOOP
    v_emitted := agentdraft_expire_lease(r.id);
    IF v_emitted IS NOT NULL THEN v_deliveries := v_deliveries || (v_emitted->'deliveries'); END IF;
  END LOOP;
  UPDATE lease_resources SET last_fencing_token = v_token + 1 WHERE workspace_id = v_ws AND resource = p_resource;
  -- Times from the statement's clock (not the transaction's start): the lease begins after the lock was won.
  INSERT INTO leases (id, workspace_id, resource, agent_id, api_key_id, fencing_token, priority, ttl_seconds, status, expires_at, metadata, created_at)
  VALUES (p_id, v_ws, p_resource, v_agent, p_actor->>'id', v_token + 1, p_priority, p_ttl, 'active', clock_timestamp() + make_interval(secs => p_ttl), p_metadata, clock_timestamp())
  RETURNING * INTO l;
  v_emitted := agentdraft_emit(v_ws, 'lease.acquired', v_agent, jsonb_build_object('lease', agentdraft_lease_json(l)), p_actor->>'trace_id');
  v_deliveries := v_deliveries || (v_emitted->'deliveries');
  PERFORM agentdraft_audit(p_actor, v_agent, 'lease.acquired', 'lease', l.id, jsonb_build_object(
    'resource', p_resource, 'fencing_token', l.fencing_token, 'ttl_seconds', p_ttl, 'priority', p_priority));
  RETURN jsonb_build_object('lease', to_jsonb(l), 'deliveries', v_deliveries);
END $$;
--> statement-breakpoint
-- Renews or releases a lease in one statement, under its resource's lock (so a renewal never
-- revives a lease an acquisition already saw dead). Only its holder (the key's agent, or a
-- workspace-wide key) may. Returns {lease, deliveries, changed} or {error: {code, lease?}}.
CREATE OR REPLACE FUNCTION agentdraft_change_lease(p_actor jsonb, p_lease_id text, p_action text, p_ttl int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_peek leases;
  l leases;
  v_ttl int;
  v_emitted jsonb;
BEGIN
  SELECT * INTO v_peek FROM leases WHERE id = p_lease_id AND workspace_id = v_ws;
  IF NOT FOUND OR (p_actor->>'type' = 'key' AND v_key_agent IS NOT NULL AND v_peek.agent_id IS DISTINCT FROM v_key_agent) THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found'));
  END IF;
  PERFORM 1 FROM lease_resources WHERE workspace_id = v_ws AND resource = v_peek.resource FOR UPDATE;
  SELECT * INTO l FROM leases WHERE id = p_lease_id FOR UPDATE;
  IF p_action = 'release' AND l.status = 'released' THEN
    RETURN jsonb_build_object('lease', to_jsonb(l), 'deliveries', '[]'::jsonb, 'changed', false);
  END IF;
  IF NOT (l.status = 'active' AND l.expires_at > clock_timestamp()) THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', CASE WHEN l.status = 'released' THEN 'lease_not_active' ELSE 'lease_expired' END, 'lease', to_jsonb(l)));
  END IF;
  IF p_action = 'renew' THEN
    v_ttl := coalesce(p_ttl, l.ttl_seconds);
    UPDATE leases SET ttl_seconds = v_ttl, expires_at = clock_timestamp() + make_interval(secs => v_ttl), renewed_at = clock_timestamp()
     WHERE id = l.id RETURNING * INTO l;
    PERFORM agentdraft_audit(p_actor, l.agent_id, 'lease.renewed', 'lease', l.id,
      jsonb_build_object('resource', l.resource, 'fencing_token', l.fencing_token, 'ttl_seconds', v_ttl, 'expires_at', agentdraft_iso(l.expires_at)));
    RETURN jsonb_build_object('lease', to_jsonb(l), 'deliveries', '[]'::jsonb, 'changed', true);
  END IF;
  UPDATE leases SET status = 'released', ended_at = clock_timestamp() WHERE id = l.id RETURNING * INTO l;
  v_emitted := agentdraft_emit(v_ws, 'lease.released', l.agent_id, jsonb_build_object('lease', agentdraft_lease_json(l)), p_actor->>'trace_id');
  PERFORM agentdraft_audit(p_actor, l.agent_id, 'lease.released', 'lease', l.id, jsonb_build_object('resource', l.resource, 'fencing_token', l.fencing_token));
  RETURN jsonb_build_object('lease', to_jsonb(l), 'deliveries', v_emitted->'deliveries', 'changed', true);
END $$;
--> statement-breakpoint
-- A message claim as the API serializes it (lib/claims/serialize.ts serializeClaim; a test keeps them equal).
CREATE OR REPLACE FUNCTION agentdraft_claim_json(c message_claims) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', c.id, 'object', 'message_claim', 'message_id', c.message_id, 'inbox_id', c.inbox_id, 'agent_id', c.agent_id,
    'status', CASE WHEN c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN 'expired' ELSE c.status END,
    'ttl_seconds', c.ttl_seconds, 'expires_at', agentdraft_iso(c.expires_at), 'created_at', agentdraft_iso(c.created_at),
    'ended_at', CASE WHEN c.ended_at IS NOT NULL THEN agentdraft_iso(c.ended_at)
                     WHEN c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN agentdraft_iso(c.expires_at) END)
$$;
--> statement-breakpoint
-- Claims, releases or completes a received message for one worker (SPEC §12) in one statement,
-- under the message's row lock. The worker is the API key (several workers may share an agent).
-- claim: a live claim of another key → {error: message_claimed}; the same key's → renewed; a
-- completed message → {error: message_completed}; a claim past its TTL is recorded expired and
-- the message taken again. release/complete: only the live claim's key. Agent-bound keys reach
-- only their agent's inboxes. Returns {claim, deliveries, changed} or {error: {code, claim?}}.
CREATE OR REPLACE FUNCTION agentdraft_claim_message(p_actor jsonb, p_id text, p_message_id text, p_action text, p_ttl int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key text := p_actor->>'id';
  v_key_agent text := p_actor->>'agent_id';
  v_trace text := p_actor->>'trace_id';
  v_inbox text;
  v_inbox_agent text;
  c message_claims;
  v_emitted jsonb;
  v_deliveries jsonb := '[]';
BEGIN
  SELECT m.inbox_id, i.agent_id INTO v_inbox, v_inbox_agent FROM messages m JOIN inboxes i ON i.id = m.inbox_id
   WHERE m.id = p_message_id AND m.workspace_id = v_ws AND m.direction = 'inbound';
  IF NOT FOUND OR (v_key_agent IS NOT NULL AND v_inbox_agent IS DISTINCT FROM v_key_agent) THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found'));
  END IF;
  PERFORM 1 FROM messages WHERE id = p_message_id FOR UPDATE;
  SELECT * INTO c FROM message_claims WHERE message_id = p_message_id AND status IN ('claimed', 'completed') FOR UPDATE;
  IF FOUND AND c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN
    UPDATE message_claims SET status = 'expired', ended_at = expires_at WHERE id = c.id RETURNING * INTO c;
    PERFORM agentdraft_audit(jsonb_build_object('workspace_id', v_ws, 'type', 'system', 'id', 'claim-expiry'), c.agent_id, 'message.claim_expired', 'message', p_message_id,
      jsonb_build_object('claim_id', c.id, 'expired_at', agentdraft_iso(c.expires_at)));
  END IF;
  IF c.id IS NOT NULL AND c.status = 'completed' THEN
    IF p_action = 'complete' AND c.api_key_id = v_key THEN
      RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', '[]'::jsonb, 'changed', false);
    END IF;
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'message_completed', 'claim', agentdraft_claim_json(c)));
  END IF;
  IF c.id IS NOT NULL AND c.status = 'claimed' AND c.api_key_id IS DISTINCT FROM v_key THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'message_claimed', 'claim', agentdraft_claim_json(c)));
  END IF;
  IF p_action = 'claim' THEN
    IF c.id IS NOT NULL AND c.status = 'claimed' THEN
      UPDATE message_claims SET ttl_seconds = p_ttl, expires_at = clock_timestamp() + make_interval(secs => p_ttl) WHERE id = c.id RETURNING * INTO c;
      PERFORM agentdraft_audit(p_actor, c.agent_id, 'message.claim_renewed', 'message', p_message_id, jsonb_build_object('claim_id', c.id, 'ttl_seconds', p_ttl));
      RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', '[]'::jsonb, 'changed', true);
    END IF;
    INSERT INTO message_claims (id, workspace_id, message_id, inbox_id, agent_id, api_key_id, status, ttl_seconds, expires_at, created_at)
    VALUES (p_id, v_ws, p_message_id, v_inbox, v_key_agent, v_key, 'claimed', p_ttl, clock_timestamp() + make_interval(secs => p_ttl), clock_timestamp())
    RETURNING * INTO c;
    v_emitted := agentdraft_emit(v_ws, 'message.claimed', coalesce(v_key_agent, v_inbox_agent), jsonb_build_object('claim', agentdraft_claim_json(c)), v_trace);
    PERFORM agentdraft_audit(p_actor, v_key_agent, 'message.claimed', 'message', p_message_id, jsonb_build_object('claim_id', c.id, 'ttl_seconds', p_ttl));
    RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', v_emitted->'deliveries', 'changed', true);
  END IF;
  IF c.id IS NULL OR c.status <> 'claimed' THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'claim_not_active'));
  END IF;
  UPDATE message_claims SET status = CASE p_action WHEN 'complete' THEN 'completed' ELSE 'released' END, ended_at = clock_timestamp()
   WHERE id = c.id RETURNING * INTO c;
  v_emitted := agentdraft_emit(v_ws, 'message.' || c.status, coalesce(c.agent_id, v_inbox_agent), jsonb_build_object('claim', agentdraft_claim_json(c)), v_trace);
  PERFORM agentdraft_audit(p_actor, c.agent_id, 'message.claim_' || c.status, 'message', p_message_id, jsonb_build_object('claim_id', c.id));
  RETURN jsonb_build_object('claim', to_jsonb(c), 'deliveries', v_emitted->'deliveries', 'changed', true);
END $$;
