import { sql } from "drizzle-orm";
import journal from "./migrations/meta/_journal.json";
import { getDb, type Database } from "./client";

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
