import { sql } from "drizzle-orm";
import { getDb, type Database } from "./client";
import { functionStatus, type FunctionStatus, type SqlSession } from "./function-files";

// Apart from migration-status.ts: the server's health check imports that one, and a built server
// neither carries db/functions nor can its bundler resolve the folder.

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
