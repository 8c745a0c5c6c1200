import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The database's functions, one file each in db/functions/<name>.sql: the current definition of
 * every overload of <name> (CREATE OR REPLACE FUNCTION, with its SET clauses), nothing else.
 * `agentdraft db migrate` applies them after the versioned migrations, like Flyway's repeatable
 * migrations: a file whose text changed since it was last applied (sha256 of the text, kept in
 * agentdraft_function_versions) is applied again, each file in a transaction of its own, in name
 * order. CREATE OR REPLACE keeps the function's oid, owner, grants and the triggers that call it,
 * so a running deployment keeps working while it changes (no DROP, no window without it).
 *
 * The bookkeeping table is created here (IF NOT EXISTS), not by a versioned migration: it belongs
 * to this step as drizzle.__drizzle_migrations belongs to drizzle's migrator, and the step must
 * find it whatever the versioned migrations did.
 */
export const FUNCTIONS_FOLDER = fileURLToPath(new URL("./functions", import.meta.url));

export type FunctionFile = { name: string; file: string; text: string; checksum: string };

/** What applying did: the files applied (changed, new or missing from the database), of `total`. */
export type FunctionsApplied = { total: number; applied: string[] };

/** Compares db/functions with what the database recorded: `pending` files are newer than the database. */
export type FunctionStatus = { total: number; current: number; pending: string[] };

/** One connection (or PGlite): a query with optional parameters, and a transaction on it. */
export type SqlSession = {
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` in a transaction on this session: committed when it returns, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
};

const FILE_NAME = /^([a-z_][a-z0-9_]{0,62})\.sql$/;
const TABLE = "agentdraft_function_versions";
const CREATE_TABLE = `create table if not exists ${TABLE} (
  name text primary key,
  checksum text not null,
  applied_at timestamptz not null default now()
)`;

export async function readFunctionFiles(folder = FUNCTIONS_FOLDER): Promise<FunctionFile[]> {
  const names = (await readdir(folder)).filter((f) => f.endsWith(".sql")).sort();
  return Promise.all(
    names.map(async (file) => {
      const m = FILE_NAME.exec(file);
      if (!m) throw new Error(`db/functions/${file}: a function file is named <function name>.sql (lower case, digits, _).`);
      const text = await readFile(path.join(folder, file), "utf8");
      return { name: m[1]!, file: `db/functions/${file}`, text, checksum: createHash("sha256").update(text).digest("hex") };
    }),
  );
}

async function tableExists(s: SqlSession): Promise<boolean> {
  return (await s.query<{ present: boolean }>(`select to_regclass('${TABLE}') is not null as present`))[0]?.present === true;
}

/** Which files differ from what the database recorded, or define a function the database lacks (a migration dropped it). */
async function pendingFiles(s: SqlSession, files: FunctionFile[]): Promise<FunctionFile[]> {
  const recorded = new Map<string, string>();
  if (await tableExists(s)) {
    for (const r of await s.query<{ name: string; checksum: string }>(`select name, checksum from ${TABLE}`)) recorded.set(r.name, r.checksum);
  }
  const existing = new Set(
    (
      await s.query<{ proname: string }>(
        "select distinct proname from pg_proc where pronamespace = (select oid from pg_namespace where nspname = current_schema()) and proname = any($1::text[])",
        [files.map((f) => f.name)],
      )
    ).map((r) => r.proname),
  );
  return files.filter((f) => recorded.get(f.name) !== f.checksum || !existing.has(f.name));
}

export async function functionStatus(s: SqlSession, folder = FUNCTIONS_FOLDER): Promise<FunctionStatus> {
  const files = await readFunctionFiles(folder);
  const pending = (await pendingFiles(s, files)).map((f) => f.name);
  return { total: files.length, current: files.length - pending.length, pending };
}

/** Postgres error codes: undefined_function (an SQL-language body calls a function not created yet). */
const UNDEFINED_FUNCTION = "42883";

/**
 * Applies every file that changed, each in its own transaction with its bookkeeping row, in name
 * order. An SQL-language function is checked when created, so a file whose body calls a function
 * another pending file creates is retried after the others (a round at a time, while any file
 * succeeds): the order stays deterministic without a list to maintain. A failure names the file
 * and the database's reason, and leaves that file's previous definition in place.
 * Run it where nothing else migrates at the same time (runMigrations holds the advisory lock).
 */
export async function applyFunctionFiles(s: SqlSession, folder = FUNCTIONS_FOLDER): Promise<FunctionsApplied> {
  const files = await readFunctionFiles(folder);
  // Created once (the statement needs CREATE on the schema even when the table exists).
  if (!(await tableExists(s))) await s.query(CREATE_TABLE);
  let todo = await pendingFiles(s, files);
  const applied: string[] = [];
  while (todo.length > 0) {
    const retry: { file: FunctionFile; err: unknown }[] = [];
    for (const file of todo) {
      try {
        await s.transaction((tx) => applyOne(tx, file));
        applied.push(file.name);
      } catch (err) {
        if (errorCode(err) === UNDEFINED_FUNCTION && todo.length > 1) retry.push({ file, err });
        else throw failure(file, err);
      }
    }
    if (retry.length === todo.length) throw failure(retry[0]!.file, retry[0]!.err);
    todo = retry.map((r) => r.file);
  }
  // A file removed from db/functions (its function dropped by a versioned migration) leaves no row behind.
  await s.query(`delete from ${TABLE} where not (name = any($1::text[]))`, [files.map((f) => f.name)]);
  return { total: files.length, applied };
}

async function applyOne(tx: SqlSession, file: FunctionFile): Promise<void> {
  // CREATE OR REPLACE needs the function's owner. 0023 gave the audit trigger functions to the
  // NOLOGIN role agentdraft_audit_owner where the migrating role could create roles, and took its
  // membership back: as 0023 did, the migrating role becomes a member for this transaction only.
  const owners = await tx.query<{ owner: string }>(
    `select distinct r.rolname as owner from pg_proc p join pg_roles r on r.oid = p.proowner
      where p.pronamespace = (select oid from pg_namespace where nspname = current_schema()) and p.proname = $1
        and not pg_has_role(current_user, p.proowner, 'USAGE')`,
    [file.name],
  );
  for (const { owner } of owners) {
    await tx.query(`grant ${quoteIdent(owner)} to current_user`).catch((err: Error) => {
      throw Object.assign(
        new Error(`its function is owned by ${owner}, which the migrating role is not a member of and cannot become (${err.message}); run migrate as a superuser or a member of ${owner}`),
        { code: errorCode(err) },
      );
    });
  }
  await tx.query(file.text);
  for (const { owner } of owners) await tx.query(`revoke ${quoteIdent(owner)} from current_user`);
  await tx.query(
    `insert into ${TABLE} (name, checksum, applied_at) values ($1, $2, now())
     on conflict (name) do update set checksum = excluded.checksum, applied_at = excluded.applied_at`,
    [file.name, file.checksum],
  );
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

function errorCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : undefined;
}

function failure(file: FunctionFile, err: unknown): Error {
  const e = err as { message?: string; position?: string | number; hint?: string };
  // The file's text is the statement, so the position the database reports is in the file.
  const at = e.position ? ` (line ${file.text.slice(0, Number(e.position) - 1).split("\n").length})` : "";
  const hint = e.hint ? ` Hint: ${e.hint}` : "";
  return new Error(`${file.file} failed to apply: ${e.message ?? String(err)}${at}.${hint} Its previous definition is still in place.`, { cause: err });
}

/** A node-postgres or Neon client, on the connection that holds the migration lock. */
export function clientSession(client: { query: (text: string, params?: unknown[]) => Promise<unknown> }): SqlSession {
  const session: SqlSession = {
    query: async <T>(text: string, params?: unknown[]) => {
      const res = (await (params ? client.query(text, params) : client.query(text))) as { rows?: T[] } | { rows?: T[] }[];
      // Several statements in one text (no parameters) answer one result each.
      return Array.isArray(res) ? (res.at(-1)?.rows ?? []) : (res.rows ?? []);
    },
    transaction: async (fn) => {
      await client.query("begin");
      try {
        const out = await fn(session);
        await client.query("commit");
        return out;
      } catch (err) {
        await client.query("rollback").catch(() => {});
        throw err;
      }
    },
  };
  return session;
}

type PgliteLike = {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: PgliteTx) => Promise<T>): Promise<T>;
};
type PgliteTx = Pick<PgliteLike, "query" | "exec">;

/** PGlite: a text of several statements goes through exec (the simple protocol), parameters through query. */
export function pgliteSession(db: PgliteLike): SqlSession {
  const on = (q: PgliteTx, tx: (fn: (t: SqlSession) => Promise<unknown>) => Promise<unknown>): SqlSession => ({
    query: async <T>(text: string, params?: unknown[]) => {
      if (params) return (await q.query<T>(text, params)).rows;
      const res = (await q.exec(text)) as { rows: T[] }[];
      return res.at(-1)?.rows ?? [];
    },
    transaction: tx as SqlSession["transaction"],
  });
  const nested = () => Promise.reject(new Error("no nested transactions"));
  return on(db, (fn) => db.transaction((t) => fn(on(t, nested))));
}
