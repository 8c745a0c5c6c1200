import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import * as schema from "./schema";
import { resolveDatabaseConfig, type DatabaseConfig, type DriverName } from "./config";
import { lockDataDir } from "./pglite-lock";
import { openNeonPool } from "./neon-pool";

/**
 * The drizzle database. All three drivers (PGlite, Neon, node-postgres) expose the same
 * query builder; the node-postgres type stands for all of them.
 */
export type Database = NodePgDatabase<typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Anything that runs queries: the database or an open transaction. */
export type Queryable = Database | Transaction;

/**
 * PGlite's own bytea codec maps every byte through a JavaScript string (7 MB: ~2 s on the
 * server's thread, the thread PGlite runs in); Buffer's native hex is ~100x faster.
 */
const BYTEA_OID = 17;
const pgliteByteaCodec = {
  serializers: { [BYTEA_OID]: (v: Uint8Array) => `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex")}` },
  parsers: { [BYTEA_OID]: (v: string) => Buffer.from(v.slice(2), "hex") },
};

type Opened = { db: Database; driver: DriverName; named?: boolean; close: () => Promise<void> };

// Held on globalThis: Next.js may load this module once per route bundle, and PGlite
// must be opened exactly once per process.
const globalForDb = globalThis as unknown as { __agentdraftDb?: Promise<Opened> };

async function open(config: DatabaseConfig): Promise<Opened> {
  switch (config.driver) {
    case "pglite": {
      const { PGlite } = await import("@electric-sql/pglite");
      const { btree_gist } = await import("@electric-sql/pglite/contrib/btree_gist");
      const { drizzle } = await import("drizzle-orm/pglite");
      const memory = config.dataDir.startsWith("memory://");
      const release = memory ? () => {} : lockDataDir(config.dataDir);
      // btree_gist must be loaded on every open, or writes to exclusion-constrained tables fail.
      // A snapshot (memory only) skips initdb and the migrations: a tenth of an empty cluster's start.
      const loadDataDir = memory && config.snapshot ? new Blob([await (await import("node:fs/promises")).readFile(config.snapshot)]) : undefined;
      const client = new PGlite({ dataDir: config.dataDir, loadDataDir, extensions: { btree_gist }, ...pgliteByteaCodec });
      await client.waitReady;
      const db = drizzle({ client, schema }) as unknown as Database;
      return { db, driver: "pglite", named: true, close: async () => { await client.close(); release(); } };
    }
    case "neon": {
      const { drizzle } = await import("drizzle-orm/neon-serverless");
      const pool = await openNeonPool(config);
      const db = drizzle({ client: pool, schema }) as unknown as Database;
      return { db, driver: "neon", close: () => pool.end() };
    }
    case "pg": {
      const { default: pg } = await import("pg");
      const { drizzle } = await import("drizzle-orm/node-postgres");
      const pool = new pg.Pool({ connectionString: config.url, max: config.poolMax, idleTimeoutMillis: config.idleTimeoutMs });
      pool.on("error", (err: Error) => console.error("[db] idle client error:", err.message));
      const db = drizzle({ client: pool, schema });
      return { db, driver: "pg", named: config.preparedStatements, close: () => pool.end() };
    }
  }
}

/** Opens the configured database on first use (never at import: `next build` must not start one). */
function opened(): Promise<Opened> {
  const existing = globalForDb.__agentdraftDb;
  if (existing) return existing;
  const p = open(resolveDatabaseConfig());
  globalForDb.__agentdraftDb = p;
  // A failed open is not cached: the next call tries again.
  p.catch(() => {
    if (globalForDb.__agentdraftDb === p) globalForDb.__agentdraftDb = undefined;
  });
  return p;
}

export async function getDb(): Promise<Database> {
  return (await opened()).db;
}

export async function getDriver(): Promise<DriverName> {
  return (await opened()).driver;
}

/** Whether fixed statements run as named prepared statements (db/prepared.ts): PGlite, and node-postgres unless DATABASE_PREPARED_STATEMENTS=off. */
export async function namedStatementsConfigured(): Promise<boolean> {
  return (await opened()).named === true;
}

/** A pooler refused a named statement: this database handle runs them unnamed until it is closed. */
export async function stopNamedStatements(): Promise<void> {
  (await opened()).named = false;
}

/**
 * The open embedded database's PGlite, or undefined when none is open (this never opens one). The
 * test setup resets it between test files instead of opening another (test/pglite-reset.ts).
 */
export async function openPglite(): Promise<import("@electric-sql/pglite").PGlite | undefined> {
  const o = await globalForDb.__agentdraftDb?.catch(() => undefined);
  if (o?.driver !== "pglite") return undefined;
  return (o.db as unknown as { $client: import("@electric-sql/pglite").PGlite }).$client;
}

export async function closeDb(): Promise<void> {
  const p = globalForDb.__agentdraftDb;
  globalForDb.__agentdraftDb = undefined;
  if (!p) return;
  const o = await p.catch(() => undefined);
  if (o) await o.close();
}
