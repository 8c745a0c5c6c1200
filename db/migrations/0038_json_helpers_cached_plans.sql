-- The row-to-JSON helpers that read the clock (a hold, lease or claim past its expiry answers
-- "expired") cannot be inlined by the planner: as SQL functions, PostgreSQL parsed and planned
-- their body again on every call (0.26 ms of a place or commit's ~1 ms in the database). As
-- plpgsql they are planned once per connection. Same bodies, same answers.
CREATE OR REPLACE FUNCTION agentdraft_hold_json(h holds, p_event_ids text[] DEFAULT '{}'::text[])
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $$
BEGIN
  RETURN jsonb_build_object(
    'id', h.id, 'object', 'hold', 'calendar_ids', to_jsonb(h.calendar_ids), 'agent_id', h.agent_id,
    'start_time', agentdraft_iso(h.start_time), 'end_time', agentdraft_iso(h.end_time), 'priority', h.priority,
    'status', CASE WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN 'expired' ELSE h.status END,
    'hold_ttl_seconds', h.ttl_seconds, 'expires_at', agentdraft_iso(h.expires_at), 'metadata', h.metadata,
    'preempted_by', CASE WHEN h.preempted_by IS NULL THEN NULL ELSE jsonb_build_object('hold_id', h.preempted_by, 'priority', coalesce(h.preempted_by_priority, 0)) END,
    'approval_id', h.approval_id,
    'event_ids', to_jsonb(p_event_ids), 'created_at', agentdraft_iso(h.created_at),
    'ended_at', CASE WHEN h.ended_at IS NOT NULL THEN agentdraft_iso(h.ended_at)
                     WHEN h.status = 'held' AND h.expires_at <= clock_timestamp() THEN agentdraft_iso(h.expires_at) END);
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_lease_json(l leases)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $$
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
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_claim_json(c message_claims)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $$
BEGIN
  RETURN jsonb_build_object(
    'id', c.id, 'object', 'message_claim', 'message_id', c.message_id, 'inbox_id', c.inbox_id, 'agent_id', c.agent_id,
    'status', CASE WHEN c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN 'expired' ELSE c.status END,
    'ttl_seconds', c.ttl_seconds, 'expires_at', agentdraft_iso(c.expires_at), 'created_at', agentdraft_iso(c.created_at),
    'ended_at', CASE WHEN c.ended_at IS NOT NULL THEN agentdraft_iso(c.ended_at)
                     WHEN c.status = 'claimed' AND c.expires_at <= clock_timestamp() THEN agentdraft_iso(c.expires_at) END);
END
$$;
