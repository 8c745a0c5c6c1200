-- agentdraft_bind_holds: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions, 0056_limits.
--
-- Binds live holds to a pending approval (SPEC §12), the last statement of the approval's
-- transaction: under the calendars' locks, each hold must be live, of the workspace, the key's
-- agent's own (agent-bound keys) and not bound to another pending approval. Binding keeps a hold
-- to the hold TTL cap (p_ttl_max from now), never past the approval's expiry: an approval nobody
-- decides does not block the time for its whole life. A person may extend it up to the
-- approval's expiry (agentdraft_extend_bound_holds). Returns {holds} or {error: {code, hold_id}}.
-- (0056_limits.sql)
CREATE OR REPLACE FUNCTION agentdraft_bind_holds(p_actor jsonb, p_approval_id text, p_hold_ids text[], p_ttl_max integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  v_key_agent text := p_actor->>'agent_id';
  v_expires timestamptz;
  v_bad text;
  v_out jsonb;
BEGIN
  SELECT least(expires_at, clock_timestamp() + make_interval(secs => p_ttl_max)) INTO v_expires FROM approvals WHERE id = p_approval_id AND workspace_id = v_ws;
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
END $function$;
