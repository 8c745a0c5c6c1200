-- audit_checkpoints_append_only: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0023_audit_owner_role_and_guards.
--
-- Signed checkpoints are append-only.
-- (0023_audit_owner_role_and_guards.sql)
-- Owner: where the migrating role could create roles, 0023 gave this function to the NOLOGIN
-- role agentdraft_audit_owner. Re-applying keeps that owner; migrate becomes it for the one
-- statement when it can (db/function-files.ts).
CREATE OR REPLACE FUNCTION audit_checkpoints_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  RAISE EXCEPTION 'audit_checkpoints is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$function$;
