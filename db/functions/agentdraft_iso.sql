-- agentdraft_iso: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions.
--
-- Timestamps as the API writes them (JavaScript's toISOString: milliseconds, UTC).
-- (0020_conflict_engine_functions.sql)
CREATE OR REPLACE FUNCTION agentdraft_iso(t timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;
