import { createHash } from "node:crypto";
import type { SQL } from "drizzle-orm";
import type { PGlite, QueryOptions } from "@electric-sql/pglite";
import { getDb, getDriver, namedStatementsConfigured, stopNamedStatements, type Queryable } from "./client";
import { pgliteExecuteNamed } from "./pglite-named";
import { sqlState } from "./errors";
import { compileFixed } from "./compile-fixed";

/**
 * The request path's fixed statements (the API door, the conflict engine's one-statement
 * changes) as named prepared statements on node-postgres: Postgres parses, analyses and plans
 * each text once per connection and then only binds it. Without this, that was about a fifth of
 * Postgres's CPU per hold request (perf, `npm run bench:holds`). Only statements whose text is
 * fixed belong here (values are parameters), and at most MAX_NAMED texts get a name per process,
 * so a text that varies can never pile up prepared statements on the server.
 *
 * On PGlite too (db/pglite-named.ts): it parses and plans every query, in WASM on the server's
 * own thread. Off for Neon's driver (its pooler decides), and with DATABASE_PREPARED_STATEMENTS=off for node-postgres behind a pooler in
 * transaction mode that does not track them (PgBouncer before 1.21). A statement such a pooler
 * refuses turns them off for that database handle and, outside a transaction, runs again unnamed.
 */
const MAX_NAMED = 256;
const names = new Map<string, string>();
let pgliteRawOptions: QueryOptions | undefined;
let pgRawTypes: unknown;
type PgClient = { query(config: { name: string; text: string; types: unknown }, values: unknown[]): Promise<{ rows: unknown[] }> };

type Internals = {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: { prepareQuery(query: { sql: string; params: unknown[] }, fields: undefined, name: string, arrayMode: false): { execute(): Promise<{ rows: unknown[] }> } };
};

function nameFor(text: string): string | undefined {
  const known = names.get(text);
  if (known || names.size >= MAX_NAMED) return known;
  const name = `agentdraft_${createHash("sha256").update(text).digest("base64url").slice(0, 22)}`;
  names.set(text, name);
  return name;
}

/** Prepared-statement errors a transaction-mode pooler causes: 26000 (not found on this server connection), 42P05 (already there). */
const poolerRefused = (err: unknown) => ["26000", "42P05"].includes(sqlState(err) ?? "");

/** Runs `query` (a statement of fixed text) on `q`, as a named prepared statement where that helps. */
export async function executeFixed<R>(q: Queryable, query: SQL): Promise<{ rows: R[] }> {
  const unnamed = async () => (await q.execute(query)) as unknown as { rows: R[] };
  if (!(await namedStatementsConfigured())) return unnamed();
  const internals = q as unknown as Internals;
  const compiled = compileFixed(query) ?? internals.dialect.sqlToQuery(query);
  const name = nameFor(compiled.sql);
  if (!name) return unnamed();
  if ((await getDriver()) === "pglite") {
    // drizzle's raw-query options (row mode, its parsers), the same for every statement: read once.
    pgliteRawOptions ??= (internals.session.prepareQuery(compiled, undefined, name, false) as unknown as { rawQueryConfig: QueryOptions }).rawQueryConfig;
    const db = await getDb();
    const pg = (db as unknown as { $client: PGlite }).$client;
    return pgliteExecuteNamed<R>(pg, q !== db, name, compiled.sql, compiled.params, pgliteRawOptions);
  }
  try {
    // Straight to node-postgres (the pool, or the transaction's connection): drizzle's prepared
    // query would build a new query object, its type parsers and its tracing spans per call. The
    // parsers are drizzle's own (dates and intervals as text), read once, so rows are the same.
    pgRawTypes ??= (internals.session.prepareQuery(compiled, undefined, name, false) as unknown as { rawQueryConfig: { types: unknown } }).rawQueryConfig.types;
    const client = (q as unknown as { session: { client: PgClient } }).session.client;
    return (await client.query({ name, text: compiled.sql, types: pgRawTypes }, compiled.params)) as { rows: R[] };
  } catch (err) {
    if (!poolerRefused(err)) throw err;
    await stopNamedStatements();
    console.error(
      "[db] the database refused a named prepared statement (a pooler in transaction mode?): statements run unnamed on this connection pool from now on. Set DATABASE_PREPARED_STATEMENTS=off to say so at start.",
    );
    if (q !== (await getDb())) throw err; // a transaction's statement failed: the transaction is gone
    return unnamed();
  }
}
