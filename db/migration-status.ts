import { sql } from "drizzle-orm";
import journal from "./migrations/meta/_journal.json";
import { getDb, type Database } from "./client";
import { functionStatus, type FunctionStatus, type SqlSession } from "./function-files";

export type MigrationStatus = {
  applied: number;
  pending: string[];
  latest: string | null;
};

/**
 * Compares the committed journal with drizzle's bookkeeping table. drizzle applies every
 * migration whose folder timestamp is newer than the newest one recorded.
 */
export async function migrationStatus(db?: Database): Promise<MigrationStatus> {
  db ??= await getDb();
  const exists = await db.execute<{ present: boolean }>(
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  let newest = 0;
  let applied = 0;
  if (exists.rows[0]?.present) {
    const res = await db.execute<{ newest: string | null; applied: string }>(
      sql`select max(created_at)::text as newest, count(*)::text as applied from drizzle.__drizzle_migrations`,
    );
    newest = Number(res.rows[0]?.newest ?? 0);
    applied = Number(res.rows[0]?.applied ?? 0);
  }
  const pending = journal.entries.filter((e) => e.when > newest).map((e) => e.tag);
  const done = journal.entries.filter((e) => e.when <= newest);
  return { applied, pending, latest: done.at(-1)?.tag ?? null };
}

/**
 * The function files (db/functions) against what the database recorded applying: `pending` are
 * the files newer than the database (changed or new since the last `agentdraft db migrate`).
 * Reads the files: for the CLI and tests, not for a server's health check (a built server does
 * not carry db/functions).
 */
export async function functionsStatus(db?: Database): Promise<FunctionStatus> {
  return functionStatus(drizzleSession(db ?? (await getDb())));
}

/** Queries through the drizzle database ($1… placeholders become bound parameters); no transactions. */
function drizzleSession(db: Database): SqlSession {
  return {
    query: async <T>(text: string, params: unknown[] = []) => {
      const parts = text.split(/\$(\d+)/);
      const chunks = parts.map((p, i) => (i % 2 === 0 ? sql.raw(p) : sql.param(params[Number(p) - 1])));
      return (await db.execute(sql.join(chunks))).rows as T[];
    },
    transaction: () => Promise.reject(new Error("functionsStatus only reads")),
  };
}
