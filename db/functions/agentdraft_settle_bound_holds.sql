-- agentdraft_settle_bound_holds: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0035_coordination_functions.
--
-- Settles the holds bound to an approval as it resolves (SPEC §12), in the resolving
-- transaction: approved → committed (on_approve 'commit') or kept with a fresh TTL ('hold');
-- denied, expired or cancelled → released. Every calendar involved is locked first, in id
-- order. A hold no longer live (preempted, released by its agent) is reported as it is. The
-- outcomes are added to the approval.resolved event (p_event_id) and returned with the
-- deliveries, Google exports and kept holds for the caller to announce after commit.
-- (0035_coordination_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_settle_bound_holds(p_actor jsonb, p_approval_id text, p_status text, p_event_id text, p_ttl_min integer, p_ttl_max integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ws text := p_actor->>'workspace_id';
  a approvals;
  h holds;
  v_action text;
  v_changed jsonb;
  v_outcomes jsonb := '[]';
  v_deliveries jsonb := '[]';
  v_exports jsonb := '[]';
  v_kept jsonb := '[]';
  v_settled text[] := '{}';
BEGIN
  SELECT * INTO a FROM approvals WHERE id = p_approval_id AND workspace_id = v_ws;
  IF NOT FOUND OR cardinality(a.hold_ids) = 0 THEN RETURN jsonb_build_object('holds', '[]'::jsonb, 'deliveries', '[]'::jsonb, 'exports', '[]'::jsonb, 'kept', '[]'::jsonb, 'settled', '[]'::jsonb); END IF;
  PERFORM 1 FROM calendars WHERE workspace_id = v_ws
     AND id IN (SELECT unnest(x.calendar_ids) FROM holds x WHERE x.approval_id = a.id)
   ORDER BY id FOR UPDATE;
  v_action := CASE WHEN p_status <> 'approved' THEN 'release' WHEN a.on_approve = 'hold' THEN 'extend' ELSE 'commit' END;
  FOR h IN SELECT * FROM holds WHERE approval_id = a.id AND workspace_id = v_ws ORDER BY id LOOP
    IF h.status = 'held' AND h.expires_at <= clock_timestamp() THEN
      -- Its life was the approval's, which just ran out: recorded released (not expired), as the approval says.
      UPDATE holds SET status = 'released', ended_at = expires_at WHERE id = h.id RETURNING * INTO h;
      v_changed := agentdraft_emit(v_ws, 'hold.released', h.agent_id, jsonb_build_object('hold', agentdraft_hold_json(h)), p_actor->>'trace_id');
      PERFORM agentdraft_audit(p_actor, h.agent_id, 'hold.released', 'hold', h.id, jsonb_build_object('approval_id', a.id, 'approval_status', p_status));
      v_deliveries := v_deliveries || (v_changed->'deliveries');
      v_settled := v_settled || h.id;
      v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', 'released', 'preempted_by', NULL, 'event_ids', '[]'::jsonb);
      CONTINUE;
    END IF;
    IF NOT (h.status = 'held' AND h.expires_at > clock_timestamp()) THEN
      v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', CASE WHEN h.status = 'held' THEN 'expired' ELSE h.status END,
        'preempted_by', CASE WHEN h.preempted_by IS NULL THEN NULL ELSE jsonb_build_object('hold_id', h.preempted_by, 'priority', coalesce(h.preempted_by_priority, 0)) END);
      CONTINUE;
    END IF;
    v_changed := agentdraft_change_hold(p_actor, h.id, v_action, NULL, p_ttl_min, p_ttl_max);
    IF v_changed ? 'error' THEN
      -- Only a commit can be refused here: busy time synced from Google since; the hold is kept for its agent to re-plan.
      PERFORM agentdraft_change_hold(p_actor, h.id, 'extend', NULL, p_ttl_min, p_ttl_max);
      v_kept := v_kept || jsonb_build_object('id', h.id, 'workspace_id', h.workspace_id, 'expires_at', (SELECT x.expires_at FROM holds x WHERE x.id = h.id));
      v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', 'commit_refused', 'preempted_by', NULL, 'conflicts', v_changed->'error'->'conflicts');
      CONTINUE;
    END IF;
    v_deliveries := v_deliveries || coalesce(v_changed->'deliveries', '[]');
    v_exports := v_exports || coalesce(v_changed->'exports', '[]');
    IF v_action = 'extend' THEN
      v_kept := v_kept || jsonb_build_object('id', h.id, 'workspace_id', h.workspace_id, 'expires_at', v_changed->'hold'->'expires_at');
    ELSE
      v_settled := v_settled || h.id;
    END IF;
    v_outcomes := v_outcomes || jsonb_build_object('hold_id', h.id, 'outcome', CASE v_action WHEN 'commit' THEN 'committed' WHEN 'extend' THEN 'held' ELSE 'released' END,
      'preempted_by', NULL, 'event_ids', coalesce((SELECT jsonb_agg(e->'id' ORDER BY e->>'id') FROM jsonb_array_elements(v_changed->'events') e), '[]'));
  END LOOP;
  IF p_event_id IS NOT NULL THEN
    UPDATE webhook_events SET data = data || jsonb_build_object('holds', v_outcomes) WHERE id = p_event_id;
  END IF;
  RETURN jsonb_build_object('holds', v_outcomes, 'deliveries', v_deliveries, 'exports', v_exports, 'kept', v_kept, 'settled', to_jsonb(v_settled));
END $function$;
