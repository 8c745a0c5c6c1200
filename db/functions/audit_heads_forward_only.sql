-- audit_heads_forward_only: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0023_audit_owner_role_and_guards.
--
-- Anchoring the audit trail in the database (SPEC §8).
-- audit_heads only moves forward: no DELETE, no TRUNCATE, and an UPDATE only to a higher
-- seq (or a no-op). A cut of the newest entries cannot be hidden by moving the head back.
-- (0023_audit_owner_role_and_guards.sql)
-- Owner: where the migrating role could create roles, 0023 gave this function to the NOLOGIN
-- role agentdraft_audit_owner. Re-applying keeps that owner; migrate becomes it for the one
-- statement when it can (db/function-files.ts).
CREATE OR REPLACE FUNCTION audit_heads_forward_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.workspace_id = OLD.workspace_id
     AND (NEW.seq > OLD.seq OR (NEW.seq = OLD.seq AND NEW.hash = OLD.hash)) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_heads only moves forward: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$function$;
