-- agentdraft_expire_hold: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0021_cancel_and_expire_functions, 0035_coordination_functions, 0044_engine_generic_plans, 0056_limits.
--
-- Records one hold's expiry (0021). A hold bound to a still-pending approval whose life is the
-- approval's (a person extended it to the approval's expiry) is left to that approval's expiry,
-- which releases it; a bound hold that ran out at the hold TTL cap expires as any hold.
-- (0056_limits.sql)
CREATE OR REPLACE FUNCTION agentdraft_expire_hold(p_hold_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  h holds;
  v_emitted jsonb;
BEGIN
  UPDATE holds SET status = 'expired', ended_at = expires_at
   WHERE id = p_hold_id AND status = 'held' AND expires_at <= clock_timestamp()
     AND NOT (approval_id IS NOT NULL AND EXISTS (SELECT 1 FROM approvals a WHERE a.id = holds.approval_id AND a.status = 'pending' AND holds.expires_at >= a.expires_at))
  RETURNING * INTO h;
  IF NOT FOUND THEN RETURN NULL; END IF;
  v_emitted := agentdraft_emit(h.workspace_id, 'hold.expired', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h)), NULL);
  PERFORM agentdraft_audit(jsonb_build_object('workspace_id', h.workspace_id, 'type', 'system', 'id', 'hold-expiry'), h.agent_id, 'hold.expired', 'hold', h.id,
    jsonb_build_object('expired_at', agentdraft_iso(h.expires_at)));
  RETURN jsonb_build_object('hold', to_jsonb(h), 'deliveries', v_emitted->'deliveries');
END $function$;
