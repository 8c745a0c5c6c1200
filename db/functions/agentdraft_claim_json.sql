-- agentdraft_claim_json: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions, 0038_json_helpers_cached_plans, 0049_message_claim_workers.
--
-- A message claim as the API serializes it (lib/domains/claims/serialize.ts serializeClaim; a test keeps them equal): now with its worker.
-- (0049_message_claim_workers.sql)
CREATE OR REPLACE FUNCTION agentdraft_claim_json(c message_claims)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object(
    'id', c.id, 'object', 'message_claim', 'message_id', c.message_id, 'inbox_id', c.inbox_id, 'agent_id', c.agent_id, 'worker', c.worker,
    'status', CASE WHEN c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN 'expired' ELSE c.status END,
    'ttl_seconds', c.ttl_seconds, 'expires_at', agentdraft_iso(c.expires_at), 'created_at', agentdraft_iso(c.created_at),
    'ended_at', CASE WHEN c.ended_at IS NOT NULL THEN agentdraft_iso(c.ended_at)
                     WHEN c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN agentdraft_iso(c.expires_at) END)
$function$;
