-- The conflict engine's functions plan their statements once per connection (SPEC §11). Left to
-- itself, PostgreSQL re-planned several of them on every call: their parameters (a range, an
-- array) make a custom plan look cheaper, so each placement and each commit paid for planning
-- again (perf: about a tenth of Postgres's CPU on the hold path). Every statement in these
-- functions finds its rows by key or by an indexed range, which a generic plan serves as well.
-- The setting holds while the function runs, so the functions they call (agentdraft_emit,
-- agentdraft_audit, agentdraft_fan_out) plan generically too.
--
-- A generic plan cannot see how many calendars a placement names, and the first pass's
-- existence check (a count over `workspace_id = ... AND id = ANY(...)`) could then scan every
-- calendar of the workspace. It now asks, per named calendar, whether it is in the workspace:
-- a lookup by key whatever the plan. The function is rewritten in place from its current body.
DO $$
DECLARE
  v_def text := pg_get_functiondef('agentdraft_place_hold'::regproc);
  v_old text := 'ELSIF (SELECT count(*) FROM calendars WHERE workspace_id = v_ws AND id = ANY(p_calendar_ids)) <> cardinality(p_calendar_ids) THEN';
  v_new text := 'ELSIF EXISTS (SELECT 1 FROM unnest(p_calendar_ids) AS x WHERE NOT EXISTS (SELECT 1 FROM calendars c WHERE c.id = x AND c.workspace_id = v_ws)) THEN';
BEGIN
  IF position(v_old IN v_def) = 0 THEN
    RAISE EXCEPTION 'agentdraft_place_hold is not the body 0043 left: rewrite this migration against the current one';
  END IF;
  EXECUTE replace(v_def, v_old, v_new);
END
$$;
--> statement-breakpoint
ALTER FUNCTION agentdraft_place_hold(jsonb, text, text[], timestamptz, timestamptz, integer, integer, jsonb) SET plan_cache_mode = force_generic_plan;
--> statement-breakpoint
ALTER FUNCTION agentdraft_change_hold(jsonb, text, text, integer, integer, integer) SET plan_cache_mode = force_generic_plan;
--> statement-breakpoint
ALTER FUNCTION agentdraft_cancel_event(jsonb, text) SET plan_cache_mode = force_generic_plan;
--> statement-breakpoint
ALTER FUNCTION agentdraft_expire_hold(text) SET plan_cache_mode = force_generic_plan;
--> statement-breakpoint
ALTER FUNCTION agentdraft_admit(text, text, integer, double precision, double precision, double precision, double precision, boolean, boolean) SET plan_cache_mode = force_generic_plan;
