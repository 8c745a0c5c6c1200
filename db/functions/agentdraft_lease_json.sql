-- agentdraft_lease_json: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions, 0038_json_helpers_cached_plans.
--
-- A lease as the API serializes it; plpgsql, as agentdraft_hold_json (0038_json_helpers_cached_plans.sql):
-- it reads the clock (a lease past its expiry answers "expired"), so the planner cannot inline it.
CREATE OR REPLACE FUNCTION agentdraft_lease_json(l leases)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN jsonb_build_object(
    'id', l.id, 'object', 'lease', 'resource', l.resource, 'agent_id', l.agent_id, 'fencing_token', l.fencing_token,
    'priority', l.priority,
    'status', CASE WHEN l.status = 'active' AND l.expires_at <= clock_timestamp() THEN 'expired' ELSE l.status END,
    'ttl_seconds', l.ttl_seconds, 'expires_at', agentdraft_iso(l.expires_at), 'metadata', l.metadata,
    'renewed_at', CASE WHEN l.renewed_at IS NULL THEN NULL ELSE agentdraft_iso(l.renewed_at) END,
    'created_at', agentdraft_iso(l.created_at),
    'ended_at', CASE WHEN l.ended_at IS NOT NULL THEN agentdraft_iso(l.ended_at)
                     WHEN l.status = 'active' AND l.expires_at <= clock_timestamp() THEN agentdraft_iso(l.expires_at) END);
END
$function$;
