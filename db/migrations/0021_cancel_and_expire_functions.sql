-- Cancelling a committed event and expiring a hold as single statements, like placing and
-- changing a hold (0020).

-- An event as the API serializes it (lib/calendars/serialize.ts serializeCalendarEvent; a test keeps them equal).
CREATE OR REPLACE FUNCTION agentdraft_event_json(e calendar_events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', e.id, 'object', 'event', 'calendar_id', e.calendar_id, 'hold_id', e.hold_id, 'agent_id', e.agent_id,
    'start_time', agentdraft_iso(e.start_time), 'end_time', agentdraft_iso(e.end_time), 'status', e.status,
    'metadata', e.metadata, 'created_at', agentdraft_iso(e.created_at),
    'cancelled_at', CASE WHEN e.cancelled_at IS NULL THEN NULL ELSE agentdraft_iso(e.cancelled_at) END)
$$;
--> statement-breakpoint
-- Cancels a committed event, freeing its time (its Google copy is queued for removal).
-- Returns {event, exports, deliveries, changed} or {error: {code}} and changes nothing.
CREATE OR REPLACE FUNCTION agentdraft_cancel_event(p_actor jsonb, p_event_id text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_peek calendar_events;
  e calendar_events;
  v_exports jsonb;
  v_emitted jsonb;
BEGIN
  SELECT * INTO v_peek FROM calendar_events WHERE id = p_event_id AND workspace_id = v_ws;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', jsonb_build_object('code', 'not_found')); END IF;
  IF p_actor->>'type' = 'key' AND v_key_agent IS NOT NULL AND v_peek.agent_id IS DISTINCT FROM v_key_agent THEN
    RETURN jsonb_build_object('error', jsonb_build_object('code', 'forbidden'));
  END IF;
  PERFORM 1 FROM calendars WHERE id = v_peek.calendar_id FOR UPDATE;
  SELECT * INTO e FROM calendar_events WHERE id = p_event_id FOR UPDATE;
  IF e.status = 'cancelled' THEN
    RETURN jsonb_build_object('event', to_jsonb(e), 'exports', '[]'::jsonb, 'deliveries', '[]'::jsonb, 'changed', false);
  END IF;
  UPDATE calendar_events SET status = 'cancelled', cancelled_at = clock_timestamp() WHERE id = e.id RETURNING * INTO e;
  WITH x AS (
    UPDATE google_event_exports SET desired = 'absent', status = 'pending', attempts = 0, next_attempt_at = now(), last_error = NULL, updated_at = now()
    WHERE calendar_event_id = e.id RETURNING id, workspace_id, link_id, next_attempt_at
  ) SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]') INTO v_exports FROM x;
  v_emitted := agentdraft_emit(v_ws, 'event.cancelled', e.agent_id, jsonb_build_object('event', agentdraft_event_json(e)), p_actor->>'trace_id');
  PERFORM agentdraft_audit(p_actor, e.agent_id, 'event.cancelled', 'event', e.id, jsonb_build_object('calendar_id', e.calendar_id));
  RETURN jsonb_build_object('event', to_jsonb(e), 'exports', v_exports, 'deliveries', v_emitted->'deliveries', 'changed', true);
END $$;
--> statement-breakpoint
-- Records one hold's expiry if it is still held and past its TTL: status, hold.expired, audit.
-- Returns {hold, deliveries} or null when there was nothing to do (extended, committed, released).
CREATE OR REPLACE FUNCTION agentdraft_expire_hold(p_hold_id text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  h holds;
  v_emitted jsonb;
BEGIN
  UPDATE holds SET status = 'expired', ended_at = expires_at
   WHERE id = p_hold_id AND status = 'held' AND expires_at <= clock_timestamp()
  RETURNING * INTO h;
  IF NOT FOUND THEN RETURN NULL; END IF;
  v_emitted := agentdraft_emit(h.workspace_id, 'hold.expired', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h)), NULL);
  PERFORM agentdraft_audit(jsonb_build_object('workspace_id', h.workspace_id, 'type', 'system', 'id', 'hold-expiry'), h.agent_id, 'hold.expired', 'hold', h.id,
    jsonb_build_object('expired_at', agentdraft_iso(h.expires_at)));
  RETURN jsonb_build_object('hold', to_jsonb(h), 'deliveries', v_emitted->'deliveries');
END $$;
