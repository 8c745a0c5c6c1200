-- agentdraft_acquire_lease: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions.
--
-- Acquires an exclusive lease on a named resource (SPEC §12) in one statement: the resource's
-- row is created if new and locked; a live lease refuses it ({conflict}); a lease past its TTL is
-- recorded expired first; the fencing token is the resource's last plus one. Leases do not
-- preempt one another whatever their priority; the agent's priority ceiling applies. Returns
-- {lease, deliveries} or {priority_above_ceiling} or {conflict} and changes nothing.
-- (0035_coordination_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_acquire_lease(p_actor jsonb, p_id text, p_resource text, p_ttl integer, p_priority integer, p_metadata jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
END $function$;
