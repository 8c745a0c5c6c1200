-- audit_entries_refuse_change: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0003_audit_append_only, 0012_audit_seal_trigger, 0023_audit_owner_role_and_guards.
--
-- The audit trail stays append-only, with one exception — the sealer
-- may set an unsealed entry's chain columns (seq, prev_hash, hash) once. What the entry
-- records can never change, and a sealed entry can never change at all.
-- (0012_audit_seal_trigger.sql)
-- Owner: where the migrating role could create roles, 0023 gave this function to the NOLOGIN
-- role agentdraft_audit_owner. Re-applying keeps that owner; migrate becomes it for the one
-- statement when it can (db/function-files.ts).
CREATE OR REPLACE FUNCTION audit_entries_refuse_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL AND NEW.seq IS NOT NULL AND NEW.prev_hash IS NOT NULL
     AND (NEW.id, NEW.workspace_id, NEW.at, NEW.actor_type, NEW.actor_id, NEW.agent_id, NEW.action, NEW.resource_type,
          NEW.resource_id, NEW.trace_id, NEW.request_id, NEW.summary, NEW.outcome, NEW.position, NEW.txid)
     IS NOT DISTINCT FROM
         (OLD.id, OLD.workspace_id, OLD.at, OLD.actor_type, OLD.actor_id, OLD.agent_id, OLD.action, OLD.resource_type,
          OLD.resource_id, OLD.trace_id, OLD.request_id, OLD.summary, OLD.outcome, OLD.position, OLD.txid)
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_entries is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$function$;
