-- The conflict engine's state changes as single statements (SPEC §11): each function locks,
-- checks, writes the hold or events, the outbox events with their deliveries and the audit
-- entries, and returns what the API answers; its locks are released when the statement's
-- transaction ends, never held across a round trip to the application.

-- Ids in the product's shape: prefix, 10 characters of milliseconds (Crockford base32), then a
-- per-database sequence (ordering ids made in one millisecond) and random characters.
CREATE SEQUENCE IF NOT EXISTS "agentdraft_id_seq" CYCLE MAXVALUE 1048575;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_base32(n bigint, width int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  out text := '';
BEGIN
  FOR i IN 1..width LOOP
    out := substr(alphabet, (n % 32)::int + 1, 1) || out;
    n := n / 32;
  END LOOP;
  RETURN out;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_new_id(p_prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT p_prefix || '_' || agentdraft_base32(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 10)
    || agentdraft_base32(nextval('agentdraft_id_seq'), 4) || substr(md5(random()::text || clock_timestamp()::text), 1, 12)
$$;
--> statement-breakpoint
-- Timestamps as the API writes them (JavaScript's toISOString: milliseconds, UTC).
CREATE OR REPLACE FUNCTION agentdraft_iso(t timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
--> statement-breakpoint
-- A hold as the API serializes it (lib/holds/serialize.ts serializeHold; a test keeps them equal).
CREATE OR REPLACE FUNCTION agentdraft_hold_json(h holds, p_event_ids text[] DEFAULT '{}') RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', h.id, 'object', 'hold', 'calendar_ids', to_jsonb(h.calendar_ids), 'agent_id', h.agent_id,
    'start_time', agentdraft_iso(h.start_time), 'end_time', agentdraft_iso(h.end_time), 'priority', h.priority,
    'status', CASE WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN 'expired' ELSE h.status END,
    'hold_ttl_seconds', h.ttl_seconds, 'expires_at', agentdraft_iso(h.expires_at), 'metadata', h.metadata,
    'preempted_by', CASE WHEN h.preempted_by IS NULL THEN NULL ELSE jsonb_build_object('hold_id', h.preempted_by, 'priority', coalesce(h.preempted_by_priority, 0)) END,
    'event_ids', to_jsonb(p_event_ids), 'created_at', agentdraft_iso(h.created_at),
    'ended_at', CASE WHEN h.ended_at IS NOT NULL THEN agentdraft_iso(h.ended_at)
                     WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN agentdraft_iso(h.expires_at) END)
$$;
--> statement-breakpoint
-- Fan-out, defined once: one delivery per matching enabled endpoint of an event, each id made
-- from the event's time and md5(event, endpoint) (so fanning out twice adds nothing). Returns
-- the deliveries made, for the application to announce after commit.
CREATE OR REPLACE FUNCTION agentdraft_fan_out(ev webhook_events) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
  WITH d AS (
    INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at)
    SELECT 'whd_' || substr(ev.id, 5, 10) || substr(md5(ev.id || e.id), 1, 16), ev.workspace_id, e.id, ev.id, ev.type, ev.created_at
    FROM webhook_endpoints e
    WHERE e.workspace_id = ev.workspace_id AND e.enabled
      AND (e.event_types IS NULL OR ev.type = ANY(e.event_types))
      AND (e.agent_ids IS NULL OR (ev.agent_id IS NOT NULL AND ev.agent_id = ANY(e.agent_ids)))
    ON CONFLICT DO NOTHING
    RETURNING id, endpoint_id, next_attempt_at
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'endpoint_id', d.endpoint_id, 'due_at', d.next_attempt_at)), '[]'::jsonb) FROM d
$$;
--> statement-breakpoint
-- The transactional outbox (SPEC §6): the event and its deliveries, in the caller's transaction.
CREATE OR REPLACE FUNCTION agentdraft_emit(p_workspace text, p_type text, p_agent text, p_data jsonb, p_trace text, p_id text DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ev webhook_events;
BEGIN
  INSERT INTO webhook_events (id, workspace_id, type, agent_id, data, trace_id, fanned_out_at)
  VALUES (coalesce(p_id, agentdraft_new_id('whm')), p_workspace, p_type, p_agent, p_data, p_trace, now())
  RETURNING * INTO v_ev;
  RETURN jsonb_build_object('event', to_jsonb(v_ev), 'deliveries', agentdraft_fan_out(v_ev));
END $$;
--> statement-breakpoint
-- One audit entry, unsealed (the sealer chains it in commit order).
CREATE OR REPLACE FUNCTION agentdraft_audit(p_actor jsonb, p_agent text, p_action text, p_resource_type text, p_resource_id text, p_summary jsonb, p_outcome text DEFAULT 'succeeded')
RETURNS void LANGUAGE sql VOLATILE AS $$
  INSERT INTO audit_entries (id, workspace_id, at, actor_type, actor_id, agent_id, action, resource_type, resource_id, trace_id, request_id, summary, outcome)
  VALUES (agentdraft_new_id('aud'), p_actor->>'workspace_id', date_trunc('milliseconds', clock_timestamp()), p_actor->>'type', p_actor->>'id', p_agent,
          p_action, p_resource_type, p_resource_id, p_actor->>'trace_id', p_actor->>'request_id', coalesce(p_summary, '{}'::jsonb), p_outcome)
$$;
--> statement-breakpoint
-- Places a hold (SPEC §4), all or nothing over its calendars. p_actor: {workspace_id, type,
-- id, agent_id, trace_id, request_id}. Returns {hold, preempted[], deliveries[]}, or
-- {missing_calendar} or {conflicts: {events, external, holds}} and changes nothing.
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
BEGIN
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
     AND tstzrange(h.start_time, h.end_time, '[)') && v_span AND h.priority >= p_priority;
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
-- (null: the hold's own, clamped to p_ttl_min..p_ttl_max).
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

  IF p_action = 'extend' THEN
    v_ttl := coalesce(p_ttl, least(greatest(h.ttl_seconds, p_ttl_min), p_ttl_max));
    UPDATE holds SET ttl_seconds = v_ttl, expires_at = clock_timestamp() + make_interval(secs => v_ttl) WHERE id = h.id RETURNING * INTO h;
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
