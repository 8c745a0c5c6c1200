import type { PGlite } from "@electric-sql/pglite";

/**
 * Each database test file on PGlite starts on a database equal to the run's migrated snapshot.
 * Opening a new PGlite from the snapshot costs 0.6 s (untar 60 MB into a new WASM heap, boot
 * Postgres), and with the memory it churned, half the embedded run's CPU: 307 s of the run's
 * wall time, 190 s without it (2 cores, 2026-12-07). So a worker keeps its PGlite from file to file and puts it
 * back to the snapshot's state between them: every table emptied (the tables the snapshot has rows
 * in keep exactly those rows), every sequence where the snapshot left it, the session's settings,
 * advisory locks, listeners and temporary tables dropped. A file that changed the schema (a
 * function, a table, a trigger, a constraint: the catalog's fingerprint differs from the
 * snapshot's) or left the database unable to reset gets a new PGlite from the snapshot instead.
 */
export type SnapshotShape = {
  /** Answers the tables (other than those the snapshot has rows in) that hold rows: { name }. */
  usedSql: string;
  /** Puts every sequence back where the snapshot left it. */
  sequencesSql: string;
  /** A query answering one row { fingerprint }: the schema and the snapshot's own rows. */
  fingerprintSql: string;
  fingerprint: string;
};

const SYSTEM = "('pg_catalog', 'information_schema', 'pg_toast')";

/** Reads the shape of the freshly migrated database that becomes the snapshot. */
export async function snapshotShape(pg: PGlite): Promise<SnapshotShape> {
  const { rows: tables } = await pg.query<{ name: string; rows: number }>(
    `select format('%I.%I', schemaname, tablename) as name, 0 as rows from pg_tables where schemaname not in ${SYSTEM} order by 1`,
  );
  for (const t of tables) t.rows = (await pg.query<{ n: number }>(`select count(*)::int as n from ${t.name}`)).rows[0]!.n;
  const emptied = tables.filter((t) => t.rows === 0).map((t) => t.name);
  const seeded = tables.filter((t) => t.rows > 0).map((t) => t.name);
  const { rows: sequences } = await pg.query<{ name: string; value: string; called: boolean }>(
    `select format('%I.%I', schemaname, sequencename) as name, coalesce(last_value, start_value)::text as value, last_value is not null as called
       from pg_sequences where schemaname not in ${SYSTEM} order by 1`,
  );
  // Only the tables a file wrote to are emptied: finding them takes milliseconds.
  const usedSql = emptied.map((t) => `select '${t}' as name where exists (select from ${t})`).join("\nunion all ");
  const sequencesSql = sequences.map((s) => `select setval('${s.name}', ${s.value}, ${s.called})`).join(";\n");
  const fingerprintSql = `select md5(string_agg(item, E'\\n' order by item)) as fingerprint from (
    select concat_ws(' ', 'relation', c.oid::regclass, c.relkind, c.relrowsecurity, (
      select string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)), ', ' order by a.attnum)
        from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)) as item
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ${SYSTEM} and n.nspname not like 'pg_temp%'
    union all select concat_ws(' ', 'function', p.oid::regprocedure, md5(concat(p.prosrc, p.proconfig)))
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ${SYSTEM}
    union all select concat_ws(' ', 'trigger', tgrelid::regclass, tgname, tgenabled, tgfoid::regprocedure) from pg_trigger where not tgisinternal
    union all select concat_ws(' ', 'constraint', conrelid::regclass, conname, pg_get_constraintdef(oid))
      from pg_constraint where connamespace in (select oid from pg_namespace where nspname not in ${SYSTEM})
    union all select concat_ws(' ', 'index', pg_get_indexdef(indexrelid)) from pg_index
     where indrelid in (select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ${SYSTEM})
    union all select concat_ws(' ', 'policy', polrelid::regclass, polname) from pg_policy
    union all select concat_ws(' ', 'setting', setconfig) from pg_db_role_setting
    union all select concat_ws(' ', 'role', rolname, rolsuper) from pg_roles
    union all select concat_ws(' ', 'extension', extname, extversion) from pg_extension
    ${seeded.map((t) => `union all select concat_ws(' ', 'row', '${t.replace(/'/g, "''")}', md5(r::text)) from ${t} r`).join("\n    ")}
  ) items`;
  const fingerprint = await fingerprintOf(pg, fingerprintSql);
  if (!fingerprint) throw new Error("The migrated database's fingerprint came back empty.");
  return { usedSql, sequencesSql, fingerprintSql, fingerprint };
}

/**
 * Puts `pg` back to the snapshot's state, or answers false when it cannot (the schema changed, or
 * a statement failed): then the caller opens a new PGlite from the snapshot.
 */
export async function resetToSnapshot(pg: PGlite, shape: SnapshotShape): Promise<boolean> {
  try {
    if (pg.closed) return false;
    // The session as a new one finds it: settings, advisory locks, LISTENs, temporary tables.
    await pg.exec("reset all; select pg_advisory_unlock_all(); unlisten *; discard temp");
    if ((await fingerprintOf(pg, shape.fingerprintSql)) !== shape.fingerprint) return false;
    await pg.transaction(async (tx) => {
      const used = (await tx.query<{ name: string }>(shape.usedSql)).rows.map((r) => r.name);
      // TRUNCATE, as new: empty files, the planner's statistics as after the migrations (DELETE and
      // VACUUM left statistics that changed plans). CASCADE takes along the tables that reference
      // these; a replica session fires no triggers, so the audit tables' append-only guard lets it.
      const truncate = used.length > 0 ? `truncate ${used.join(", ")} cascade` : "select";
      await tx.exec(["set local session_replication_role = replica", truncate, shape.sequencesSql].join(";\n"));
    });
    return true;
  } catch {
    return false;
  }
}

/** The catalog's fingerprint, the snapshot's rows rendered as text the same way in any session. */
async function fingerprintOf(pg: PGlite, fingerprintSql: string): Promise<string | undefined> {
  return pg.transaction(async (tx) => {
    await tx.exec("set local timezone = 'UTC'; set local datestyle = 'ISO, YMD'; set local intervalstyle = 'postgres'; set local extra_float_digits = 3");
    return (await tx.query<{ fingerprint: string }>(fingerprintSql)).rows[0]?.fingerprint;
  });
}
