-- agentdraft_base32: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0027_one_statement_door.
--
-- Crockford base32 of n's low `width` digits (width <= 10), in one expression instead of a loop.
-- (0027_one_statement_door.sql)
CREATE OR REPLACE FUNCTION agentdraft_base32(n bigint, width integer)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  RETURN right(
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 40) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 30) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 20) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 10) & 31)::int + 1, 1) ||
    substr('0123456789abcdefghjkmnpqrstvwxyz', ((n >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', (n & 31)::int + 1, 1),
    width);
END $function$;
