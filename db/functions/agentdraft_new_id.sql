-- agentdraft_new_id: its current definition. Edit this file to change the function; `agentdraft db migrate`
-- re-applies it when its text changed (see CONTRIBUTING.md, "Changing a database function").
-- Before this file, in versioned migrations: 0020_conflict_engine_functions, 0027_one_statement_door.
--
-- A new id: the prefix, the time in milliseconds and a sequence number (Crockford base32), and
-- random hex. plpgsql since 0027_one_statement_door (planned once per connection).
CREATE OR REPLACE FUNCTION agentdraft_new_id(p_prefix text)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN p_prefix || '_' || agentdraft_base32(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 10)
    || agentdraft_base32(nextval('agentdraft_id_seq'), 4) || substr(md5(random()::text || clock_timestamp()::text), 1, 12);
END $function$;
