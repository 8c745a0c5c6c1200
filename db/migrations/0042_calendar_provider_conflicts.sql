-- hold_conflict names where external busy time came from (google or microsoft), not always
-- 'google'. The conflict functions are rewritten in place: the same bodies (as 0035 defined
-- them), with the literal source replaced by the interval's own column.
DO $$
DECLARE
  f record;
BEGIN
  FOR f IN SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = current_schema() AND p.prosrc LIKE '%''source'', ''google''%'
  LOOP
    EXECUTE replace(pg_get_functiondef(f.oid), '''source'', ''google''', '''source'', b.source');
  END LOOP;
END
$$;
