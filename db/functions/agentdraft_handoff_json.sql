-- agentdraft_handoff_json: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0032_handoff_functions.
--
-- A handoff's envelope as the API serializes it (lib/domains/handoffs/serialize.ts serializeHandoff; a test keeps them equal).
-- (0032_handoff_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_handoff_json(h handoffs)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object(
    'id', h.id, 'object', 'handoff', 'type', h.type, 'from_agent_id', h.from_agent_id, 'to_agent_id', h.to_agent_id,
    'correlation_id', h.correlation_id, 'parent_id', h.parent_id, 'trace_id', h.trace_id, 'status', h.status,
    'attempt', h.attempt, 'max_attempts', h.max_attempts,
    'claim', CASE WHEN h.status = 'claimed' THEN jsonb_build_object('worker', h.claim_worker,
      'claimed_at', agentdraft_iso(h.claimed_at), 'expires_at', agentdraft_iso(h.claim_expires_at)) END,
    'expires_at', CASE WHEN h.expires_at IS NULL THEN NULL ELSE agentdraft_iso(h.expires_at) END,
    'last_error', h.last_error, 'dead_reason', h.dead_reason,
    'created_at', agentdraft_iso(h.created_at), 'updated_at', agentdraft_iso(h.updated_at),
    'ended_at', CASE WHEN h.ended_at IS NULL THEN NULL ELSE agentdraft_iso(h.ended_at) END)
$function$;
