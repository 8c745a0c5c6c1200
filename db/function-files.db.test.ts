// @suite pooled
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../lib/platform/config/env";
import { closeDb, getDb } from "./client";
import { applyFunctionFiles, clientSession, FUNCTIONS_FOLDER, functionStatus, pgliteSession, readFunctionFiles, type SqlSession } from "./function-files";
import { runMigrations } from "./migrate";
import { functionsStatus } from "./functions-status";

const mode = process.env.AGENTDRAFT_TEST_DB;
const migrationsFolder = path.join(import.meta.dirname, "migrations");

/** The functions of the current schema this project made (not an extension's, such as btree_gist's). */
const OWN_FUNCTIONS = `select p.proname as name, pg_get_function_identity_arguments(p.oid) as args
  from pg_proc p where p.pronamespace = (select oid from pg_namespace where nspname = current_schema())
   and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
 order by 1, 2`;

/** Everything CREATE OR REPLACE sets, per signature, in schema $1, for the names $2. */
const DEFINITIONS = `select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as signature,
    json_build_object('arguments', pg_get_function_arguments(p.oid), 'result', pg_get_function_result(p.oid),
      'language', l.lanname, 'kind', p.prokind, 'source', p.prosrc, 'config', p.proconfig, 'security_definer', p.prosecdef,
      'leakproof', p.proleakproof, 'strict', p.proisstrict, 'volatility', p.provolatile, 'parallel', p.proparallel,
      'cost', p.procost, 'rows', p.prorows, 'comment', obj_description(p.oid, 'pg_proc'))::text as definition
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
 where n.nspname = $1 and p.proname = any($2::text[])
 order by 1`;

/** The files edited after the versioned migrations (their history: `git log -p db/functions/<name>.sql`). */
const EDITED_SINCE = new Set([
  // Re-booking a committed event (issue #32, 0061_hold_rebooks_event).
  "agentdraft_change_hold",
  "agentdraft_hold_json",
  "agentdraft_place_hold",
  // Ending a message claim names it (issue #48).
  "agentdraft_claim_message",
]);

/** The files added after the versioned migrations: no migration made their functions (their history: `git log -p db/functions/<name>.sql`). */
const NEW_SINCE = new Set([
  // The API's calendar create as one statement the door rides in (issue #38).
  "agentdraft_create_calendar",
]);

/** A database migrated with the versioned migrations only: a deployment from before db/functions. */
async function versionedOnly(): Promise<{ session: SqlSession; url?: string; close: () => Promise<void> }> {
  if (mode === "pglite") {
    const { PGlite } = await import("@electric-sql/pglite");
    const { btree_gist } = await import("@electric-sql/pglite/contrib/btree_gist");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const client = new PGlite({ dataDir: "memory://", extensions: { btree_gist } });
    await migrate(drizzle({ client }), { migrationsFolder });
    return { session: pgliteSession(client), close: () => client.close() };
  }
  const { onServer } = await import("../test/global-setup-postgres");
  const { default: pg } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  // Named after this file's database, so the run's teardown drops it even if this file cannot.
  const url = new URL(process.env.DATABASE_URL_UNPOOLED ?? process.env.DATABASE_URL!);
  const name = `${url.pathname.slice(1)}_v`;
  await onServer(`create database "${name}"`);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await migrate(drizzle({ client }), { migrationsFolder });
  return {
    session: clientSession(client),
    url: url.toString(),
    close: async () => {
      await client.end();
      await onServer(`drop database if exists "${name}" with (force)`);
    },
  };
}

/** The test file's own database (migrated with the files by the setup), on a session of its own. */
async function fileDatabase(): Promise<{ session: SqlSession; close: () => Promise<void> }> {
  if (mode === "pglite") {
    const db = (await getDb()) as unknown as { $client: Parameters<typeof pgliteSession>[0] };
    return { session: pgliteSession(db.$client), close: async () => {} };
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL_UNPOOLED ?? process.env.DATABASE_URL! });
  await client.connect();
  return { session: clientSession(client), close: () => client.end() };
}

/** Each signature's definition in the database, and as the files create it (in a scratch schema, rolled back). */
async function definitionsAgainstFiles(s: SqlSession): Promise<{ database: Record<string, string>; files: Record<string, string> }> {
  const files = await readFunctionFiles();
  const names = files.map((f) => f.name);
  const byRow = (rows: { signature: string; definition: string }[]) => Object.fromEntries(rows.map((r) => [r.signature, r.definition]));
  const database = byRow(await s.query(DEFINITIONS, ["public", names]));
  let created: Record<string, string> = {};
  const rollback = new Error("rollback");
  await s
    .transaction(async (tx) => {
      await tx.query("create schema agentdraft_function_check");
      // Unqualified names are created in the first schema of the path; tables resolve in public.
      await tx.query("set local search_path = agentdraft_function_check, public");
      for (const f of files) await tx.query(f.text);
      created = byRow(await tx.query(DEFINITIONS, ["agentdraft_function_check", names]));
      throw rollback;
    })
    .catch((err) => {
      if (err !== rollback) throw err;
    });
  return { database, files: created };
}

async function folderWith(changes: Record<string, (text: string) => string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "agentdraft-functions-"));
  await cp(FUNCTIONS_FOLDER, dir, { recursive: true });
  for (const [name, change] of Object.entries(changes)) {
    const file = path.join(dir, `${name}.sql`);
    const before = await readFile(file, "utf8");
    const after = change(before);
    expect(after, `${name}.sql changed`).not.toBe(before);
    await writeFile(file, after);
  }
  return dir;
}

const source = async (s: SqlSession, name: string) =>
  (await s.query<{ src: string }>("select string_agg(prosrc, ' ' order by oid) as src from pg_proc where proname = $1", [name]))[0]!.src;

describe("database functions on a deployment from before db/functions", () => {
  let old: Awaited<ReturnType<typeof versionedOnly>>;
  const folders: string[] = [];

  beforeAll(async () => {
    old = await versionedOnly();
  });
  afterAll(async () => {
    await old?.close();
    for (const dir of folders) await rm(dir, { recursive: true, force: true });
  });

  it("has exactly one file for every function the migrations made, and each file creates what the migrations left", async () => {
    const files = await readFunctionFiles();
    const own = await old.session.query<{ name: string; args: string }>(OWN_FUNCTIONS);
    expect([...new Set(own.map((r) => r.name))].sort()).toEqual(files.map((f) => f.name).filter((name) => !NEW_SINCE.has(name)));
    const { database, files: created } = await definitionsAgainstFiles(old.session);
    expect(Object.keys(database)).toHaveLength(own.length);
    // Source, settings (plan_cache_mode), arguments, result, language, volatility…: signature by signature,
    // for the files nobody has edited since; an edited file keeps every signature the migrations made
    // (a deployment still running calls them) and may add new ones.
    const unedited = (defs: Record<string, string>) => Object.fromEntries(Object.entries(defs).filter(([sig]) => !EDITED_SINCE.has(sig.slice(0, sig.indexOf("("))) && !NEW_SINCE.has(sig.slice(0, sig.indexOf("(")))));
    expect(unedited(created)).toEqual(unedited(database));
    expect(Object.keys(created)).toEqual(expect.arrayContaining(Object.keys(database)));
  });

  it("takes every file on its next migrate, once, even with several deploys migrating at once; then nothing", async () => {
    const files = await readFunctionFiles();
    let applied: string[][];
    if (mode === "pglite") {
      // One process owns a PGlite database: the lock has nothing to order.
      applied = [(await applyFunctionFiles(old.session)).applied];
    } else {
      // Three real `runMigrations` against the old database, each on its own connection, at once:
      // the advisory lock lets one apply the files; the others find them current.
      const saved = { DATABASE_URL: process.env.DATABASE_URL, DATABASE_URL_UNPOOLED: process.env.DATABASE_URL_UNPOOLED };
      await closeDb();
      if (mode === "pooled") {
        const pooled = new URL(process.env.DATABASE_URL!);
        pooled.pathname = new URL(old.url!).pathname;
        process.env.DATABASE_URL = pooled.toString();
        process.env.DATABASE_URL_UNPOOLED = old.url!;
      } else process.env.DATABASE_URL = old.url!;
      resetEnvCache();
      try {
        const runs = await Promise.all([runMigrations(), runMigrations(), runMigrations()]);
        for (const r of runs) expect(r.pending).toEqual([]);
        applied = runs.map((r) => r.functions.applied);
      } finally {
        await closeDb();
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
        resetEnvCache();
      }
    }
    expect(applied.flat().sort()).toEqual(files.map((f) => f.name));
    expect(await functionStatus(old.session)).toEqual({ total: files.length, current: files.length, pending: [] });
    expect((await applyFunctionFiles(old.session)).applied).toEqual([]);
  });

  it("re-applies only a changed file, and a second migrate applies nothing", async () => {
    const marker = `-- changed ${Date.now()}`;
    const dir = await folderWith({ agentdraft_iso: (t) => t.replace("AS $function$\n", `AS $function$\n${marker}\n`) });
    folders.push(dir);
    expect((await functionStatus(old.session, dir)).pending).toEqual(["agentdraft_iso"]);
    expect(await applyFunctionFiles(old.session, dir)).toEqual({ total: (await readFunctionFiles()).length, applied: ["agentdraft_iso"] });
    expect(await source(old.session, "agentdraft_iso")).toContain(marker);
    // The function still answers, and its callers with it.
    const [row] = await old.session.query<{ iso: string }>("select agentdraft_iso('2025-01-02 03:04:05.678+00') as iso");
    expect(row!.iso).toBe("2025-01-02T03:04:05.678Z");
    expect((await applyFunctionFiles(old.session, dir)).applied).toEqual([]);
    // Back to the committed file: that one file again.
    expect((await applyFunctionFiles(old.session)).applied).toEqual(["agentdraft_iso"]);
    expect(await source(old.session, "agentdraft_iso")).not.toContain(marker);
  });

  it("applies a new language sql file after the new file it calls, though its name sorts first", async () => {
    const dir = await folderWith({});
    folders.push(dir);
    await writeFile(path.join(dir, "agentdraft_zz_outer.sql"), "CREATE OR REPLACE FUNCTION agentdraft_zz_outer() RETURNS int LANGUAGE sql AS $$ SELECT agentdraft_zz_shared() + 1 $$;\n");
    await writeFile(path.join(dir, "agentdraft_zz_shared.sql"), "CREATE OR REPLACE FUNCTION agentdraft_zz_shared() RETURNS int LANGUAGE sql AS $$ SELECT 41 $$;\n");
    try {
      expect((await applyFunctionFiles(old.session, dir)).applied).toEqual(["agentdraft_zz_shared", "agentdraft_zz_outer"]);
      expect(await old.session.query("select agentdraft_zz_outer() as n")).toEqual([{ n: 42 }]);
    } finally {
      await old.session.query("drop function if exists agentdraft_zz_outer(); drop function if exists agentdraft_zz_shared()");
    }
    // Their files gone (and their functions dropped), their records go too.
    expect((await applyFunctionFiles(old.session)).applied).toEqual([]);
    expect(await old.session.query("select name from agentdraft_function_versions where name like 'agentdraft_zz_%'")).toEqual([]);
  });
});

describe("database functions on a migrated database", () => {
  let db: Awaited<ReturnType<typeof fileDatabase>>;
  const folders: string[] = [];
  beforeAll(async () => {
    db = await fileDatabase();
  });
  afterAll(async () => {
    await db?.close();
    for (const dir of folders) await rm(dir, { recursive: true, force: true });
  });

  it("are all current after migrate, and equal to their files", async () => {
    const files = await readFunctionFiles();
    expect(await functionsStatus()).toEqual({ total: files.length, current: files.length, pending: [] });
    const { database, files: created } = await definitionsAgainstFiles(db.session);
    expect(created).toEqual(database);
  });

  it("a file that does not compile fails migrate, naming the file, and leaves the previous definition in place", async () => {
    const before = await source(db.session, "agentdraft_expire_lease");
    const dir = await folderWith({ agentdraft_expire_lease: (t) => t.replace(/\bTHEN\b/, "THEN THEN") });
    folders.push(dir);
    const line = (await readFile(path.join(dir, "agentdraft_expire_lease.sql"), "utf8")).split("\n").findIndex((l) => l.includes("THEN THEN")) + 1;
    await expect(applyFunctionFiles(db.session, dir)).rejects.toThrow(
      `db/functions/agentdraft_expire_lease.sql failed to apply: syntax error at or near "THEN" (line ${line}). Its previous definition is still in place.`,
    );
    expect(await source(db.session, "agentdraft_expire_lease")).toBe(before);
    expect((await functionStatus(db.session, dir)).pending).toEqual(["agentdraft_expire_lease"]);
    expect((await functionStatus(db.session)).pending).toEqual([]);
  });

  it.runIf(mode !== "pglite")(
    "a migrating role that is not the owner of the audit trigger functions (0023) replaces them as their owner's member for the one transaction",
    async () => {
      const role = `agentdraft_migrator_${process.pid}`;
      const q = (text: string) => db.session.query(text);
      const [{ version }] = (await db.session.query<{ version: number }>("select current_setting('server_version_num')::int as version")) as [{ version: number }];
      await q(`create role ${role} nologin createrole`);
      try {
        await q(`grant create, usage on schema public to ${role}`);
        await q(`grant select, insert, update, delete on agentdraft_function_versions to ${role}`);
        // PostgreSQL 16 on: a CREATEROLE role grants only roles it administers. Where 0023 ran as such
        // a role (Neon), it made agentdraft_audit_owner and so administers it, without being a member.
        if (version >= 160000) await q(`grant agentdraft_audit_owner to ${role} with admin true, inherit false, set false`);
        const marker = `-- changed ${Date.now()}`;
        const dir = await folderWith({ audit_heads_forward_only: (t) => t.replace("AS $function$\n", `AS $function$\n${marker}\n`) });
        folders.push(dir);
        const applied = await db.session.transaction(async (tx) => {
          await tx.query(`set local role ${role}`);
          const [{ member }] = (await tx.query<{ member: boolean }>("select pg_has_role(current_user, 'agentdraft_audit_owner', 'USAGE') as member")) as [{ member: boolean }];
          expect(member).toBe(false);
          // Inside this transaction, so the role's own per-file transactions are savepoint-free: apply directly.
          return applyFunctionFiles({ query: tx.query, transaction: (fn) => fn(tx) }, dir);
        });
        expect(applied.applied).toEqual(["audit_heads_forward_only"]);
        expect(await source(db.session, "audit_heads_forward_only")).toContain(marker);
        const [after] = await db.session.query<{ owner: string; member: boolean }>(
          `select pg_get_userbyid(proowner) as owner, pg_has_role('${role}', 'agentdraft_audit_owner', 'USAGE') as member from pg_proc where proname = 'audit_heads_forward_only'`,
        );
        expect(after).toEqual({ owner: "agentdraft_audit_owner", member: false });
        // Its triggers still call it: a truncate is refused.
        await expect(db.session.query("truncate audit_heads")).rejects.toThrow(/audit_heads only moves forward: TRUNCATE/);
        expect((await applyFunctionFiles(db.session)).applied).toEqual(["audit_heads_forward_only"]);
      } finally {
        await q(`drop owned by ${role}`);
        await q(`drop role ${role}`);
      }
    },
  );
});
