-- Custom SQL migration: anchoring the audit trail in the database (SPEC §8).
-- 1. audit_heads only moves forward: no DELETE, no TRUNCATE, and an UPDATE only to a higher
--    seq (or a no-op). A cut of the newest entries cannot be hidden by moving the head back.
CREATE OR REPLACE FUNCTION audit_heads_forward_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.workspace_id = OLD.workspace_id
     AND (NEW.seq > OLD.seq OR (NEW.seq = OLD.seq AND NEW.hash = OLD.hash)) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_heads only moves forward: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_heads_forward_only BEFORE UPDATE OR DELETE ON audit_heads
  FOR EACH ROW EXECUTE FUNCTION audit_heads_forward_only();
--> statement-breakpoint
CREATE TRIGGER audit_heads_no_truncate BEFORE TRUNCATE ON audit_heads
  FOR EACH STATEMENT EXECUTE FUNCTION audit_heads_forward_only();
--> statement-breakpoint
-- 2. Signed checkpoints are append-only.
CREATE OR REPLACE FUNCTION audit_checkpoints_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_checkpoints is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_update_delete BEFORE UPDATE OR DELETE ON audit_checkpoints
  FOR EACH ROW EXECUTE FUNCTION audit_checkpoints_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION audit_checkpoints_append_only();
--> statement-breakpoint
-- 3. Where the database allows it (the migrating role is a superuser or has CREATEROLE), the
--    audit tables and their trigger functions move to a separate NOLOGIN owner role, so a role
--    that only has the grants below cannot disable, drop or replace the triggers. The migrating
--    role keeps SELECT, INSERT, UPDATE (with grant option, to pass on to an app role) and the
--    sequence. Elsewhere nothing changes and the notice says so; see the README (Neon setup).
DO $$
DECLARE
  me text := current_user;
  is_super boolean;
  can_create boolean;
BEGIN
  SELECT rolsuper, rolsuper OR rolcreaterole INTO is_super, can_create FROM pg_roles WHERE rolname = current_user;
  IF NOT can_create THEN
    RAISE NOTICE 'agentdraft: % cannot create roles, so the audit tables stay owned by it (see the README: audit owner role)', me;
    RETURN;
  END IF;
  BEGIN
    CREATE ROLE agentdraft_audit_owner NOLOGIN;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- made by an earlier migration of another database in this cluster
  END;
  -- Handing a table to a role needs the right to become it; a superuser always has it.
  IF NOT is_super THEN
    EXECUTE format('GRANT agentdraft_audit_owner TO %I', me);
  END IF;
  EXECUTE format('GRANT SELECT, INSERT, UPDATE ON audit_entries, audit_heads, audit_checkpoints TO %I WITH GRANT OPTION', me);
  EXECUTE format('GRANT USAGE, SELECT ON SEQUENCE audit_entries_position_seq TO %I WITH GRANT OPTION', me);
  ALTER TABLE audit_entries OWNER TO agentdraft_audit_owner;
  ALTER TABLE audit_heads OWNER TO agentdraft_audit_owner;
  ALTER TABLE audit_checkpoints OWNER TO agentdraft_audit_owner;
  ALTER FUNCTION audit_entries_refuse_change() OWNER TO agentdraft_audit_owner;
  ALTER FUNCTION audit_heads_forward_only() OWNER TO agentdraft_audit_owner;
  ALTER FUNCTION audit_checkpoints_append_only() OWNER TO agentdraft_audit_owner;
  IF NOT is_super THEN
    EXECUTE format('REVOKE agentdraft_audit_owner FROM %I', me);
  END IF;
END;
$$;
