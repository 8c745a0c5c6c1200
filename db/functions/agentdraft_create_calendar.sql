-- agentdraft_create_calendar: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- New in this file (no versioned migration made it).
--
-- Creates a calendar and its audit entry, and answers the calendar's row as jsonb: one call, so
-- the API's create is one `effect` statement (db/effect.ts) that the door and an idempotent
-- request's record ride in (a data-modifying CTE could not be gated by the door in the same
-- statement, and cost a round trip of its own).
CREATE OR REPLACE FUNCTION agentdraft_create_calendar(p_actor jsonb, p_id text, p_name text, p_description text, p_timezone text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  c calendars;
BEGIN
  INSERT INTO calendars (id, workspace_id, name, description, timezone)
  VALUES (p_id, p_actor->>'workspace_id', p_name, p_description, p_timezone)
  RETURNING * INTO c;
  PERFORM agentdraft_audit(p_actor, p_actor->>'agent_id', 'calendar.created', 'calendar', c.id,
    jsonb_build_object('name', c.name, 'timezone', c.timezone));
  RETURN to_jsonb(c);
END $function$;
