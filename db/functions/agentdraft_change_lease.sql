-- agentdraft_change_lease: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions.
--
-- Renews or releases a lease in one statement, under its resource's lock (so a renewal never
-- revives a lease an acquisition already saw dead). Only its holder (the key's agent, or a
-- workspace-wide key) may. Returns {lease, deliveries, changed} or {error: {code, lease?}}.
-- (0035_coordination_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_change_lease(p_actor jsonb, p_lease_id text, p_action text, p_ttl integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
END $function$;
