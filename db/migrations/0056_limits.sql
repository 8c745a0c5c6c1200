-- Limits where there were none (issue #30, item 7): an agent's pending approvals are capped by a
-- workspace setting; a hold bound to an approval keeps the hold TTL cap unless a person extends
-- it; the web app's live channel takes a slot per member and session, like a key's event streams,
-- so removing the member or ending the session ends the stream. event_stream_slots holds only
-- short-lived rows; the new workspaces column has a constant default (metadata only).
ALTER TABLE "event_stream_slots" ALTER COLUMN "key_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "max_pending_approvals_per_agent" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "event_stream_slots" ADD COLUMN "member_id" text;--> statement-breakpoint
ALTER TABLE "event_stream_slots" ADD COLUMN "session_token" text;--> statement-breakpoint
ALTER TABLE "event_stream_slots" ADD CONSTRAINT "event_stream_slots_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_stream_slots" ADD CONSTRAINT "event_stream_slots_session_token_sessions_session_token_fk" FOREIGN KEY ("session_token") REFERENCES "public"."sessions"("session_token") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_stream_slots_member_idx" ON "event_stream_slots" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "event_stream_slots_session_idx" ON "event_stream_slots" USING btree ("session_token");--> statement-breakpoint
CREATE INDEX "approvals_pending_agent_idx" ON "approvals" USING btree ("workspace_id","agent_id","api_key_id") WHERE "approvals"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_max_pending_approvals_range" CHECK ("workspaces"."max_pending_approvals_per_agent" between 1 and 1000);--> statement-breakpoint
ALTER TABLE "event_stream_slots" ADD CONSTRAINT "event_stream_slots_owner_check" CHECK (("event_stream_slots"."key_id" is not null and "event_stream_slots"."member_id" is null and "event_stream_slots"."session_token" is null) or ("event_stream_slots"."key_id" is null and "event_stream_slots"."member_id" is not null and "event_stream_slots"."session_token" is not null));--> statement-breakpoint
-- Takes one of a member's live-channel slots (the web app's /api/live), for one session:
-- 'opened', 'full' beyond p_max, or 'signed_out' when the session ended or the member was
-- removed. Serialised per member, as agentdraft_open_event_stream is per key.
CREATE OR REPLACE FUNCTION agentdraft_open_live_stream(p_member text, p_session text, p_slot text, p_max int, p_ttl_seconds int)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_open int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('agentdraft_live_stream:' || p_member, 0));
  IF NOT EXISTS (SELECT 1 FROM sessions WHERE session_token = p_session AND expires > clock_timestamp())
     OR NOT EXISTS (SELECT 1 FROM members WHERE id = p_member) THEN
    RETURN 'signed_out';
  END IF;
  DELETE FROM event_stream_slots WHERE member_id = p_member AND expires_at <= clock_timestamp();
  SELECT count(*) INTO v_open FROM event_stream_slots WHERE member_id = p_member;
  IF v_open >= p_max THEN
    RETURN 'full';
  END IF;
  INSERT INTO event_stream_slots (id, member_id, session_token, expires_at) VALUES (p_slot, p_member, p_session, clock_timestamp() + make_interval(secs => p_ttl_seconds));
  RETURN 'opened';
END $$;
--> statement-breakpoint
DROP FUNCTION IF EXISTS agentdraft_bind_holds(jsonb, text, text[]);
--> statement-breakpoint
-- Binds live holds to a pending approval (SPEC §12), the last statement of the approval's
-- transaction: under the calendars' locks, each hold must be live, of the workspace, the key's
-- agent's own (agent-bound keys) and not bound to another pending approval. Binding keeps a hold
-- to the hold TTL cap (p_ttl_max from now), never past the approval's expiry: an approval nobody
-- decides does not block the time for its whole life. A person may extend it up to the
-- approval's expiry (agentdraft_extend_bound_holds). Returns {holds} or {error: {code, hold_id}}.
CREATE OR REPLACE FUNCTION agentdraft_bind_holds(p_actor jsonb, p_approval_id text, p_hold_ids text[], p_ttl_max int)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
--> statement-breakpoint
-- Records one hold's expiry (0021). A hold bound to a still-pending approval whose life is the
-- approval's (a person extended it to the approval's expiry) is left to that approval's expiry,
-- which releases it; a bound hold that ran out at the hold TTL cap expires as any hold.
CREATE OR REPLACE FUNCTION agentdraft_expire_hold(p_hold_id text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
--> statement-breakpoint
ALTER FUNCTION agentdraft_expire_hold(text) SET plan_cache_mode = force_generic_plan;
