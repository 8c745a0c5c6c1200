import { sql } from "drizzle-orm";
import { getDb } from "../../db/client";
import { openTransaction } from "./open-transaction";

const onPostgres = process.env.AGENTDRAFT_TEST_DB === "postgres";

/**
 * Makes racing requests really meet, on Postgres: a connection of its own takes a row lock
 * (`lock`, a `select … for update`), `race` starts the requests, and the lock is released only
 * once `waiters` transactions wait for a lock in a statement matching `waitingQuery` (an ILIKE
 * pattern): they then go at once, as two browsers would. Answers the race's result and whether
 * they met (false: they did not all reach the lock within 10 s). On PGlite (one connection,
 * transactions take turns) it only runs the race, which then cannot meet: `met` is null.
 */
export async function raceAtLock<T>(lock: [string, unknown[]], waitingQuery: string, waiters: number, race: () => Promise<T>): Promise<{ result: T; met: boolean | null }> {
  if (!onPostgres) return { result: await race(), met: null };
  const release = await openTransaction(lock);
  let met = false;
  try {
    const racing = race();
    racing.catch(() => undefined); // awaited below; not unhandled meanwhile
    const db = await getDb();
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const [{ n }] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() and query ilike ${waitingQuery}`)).rows as [{ n: number }];
      if (n >= waiters) {
        met = true;
        break;
      }
    }
    await release();
    return { result: await racing, met };
  } finally {
    await release();
  }
}
