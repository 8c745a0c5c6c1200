-- agentdraft_expire_lease: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions.
--
-- Records a lease's expiry (status, lease.expired, audit) if it is active and past its TTL; null otherwise.
-- (0035_coordination_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_expire_lease(p_lease_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
END $function$;
