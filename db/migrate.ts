import { fileURLToPath } from "node:url";
import { getDb, getDriver } from "./client";
import { resolveDatabaseConfig } from "./config";
import { migrationStatus, type MigrationStatus } from "./migration-status";
import { applyFunctionFiles, clientSession, pgliteSession, type FunctionsApplied } from "./function-files";

const migrationsFolder = () => fileURLToPath(new URL("./migrations", import.meta.url));
const LOCK = "select pg_advisory_lock(hashtext('agentdraft:migrate'))";
const UNLOCK = "select pg_advisory_unlock(hashtext('agentdraft:migrate'))";

type Client = { connect: () => Promise<unknown>; query: (q: string, params?: unknown[]) => Promise<unknown>; end: () => Promise<void> };

/** After migrating: the versioned migrations' status, and the function files (db/functions) this run applied. */
export type MigrateResult = MigrationStatus & { functions: FunctionsApplied };

/**
 * Applies every pending migration in db/migrations with the driver's own migrator, then every
 * function file of db/functions whose text changed (db/function-files.ts). Idempotent.
 * On a server it runs on one dedicated connection to DATABASE_URL_UNPOOLED (else DATABASE_URL):
 * a pooler in transaction mode (Neon's pooled URL) keeps no session state, and the advisory lock
 * that lets exactly one of several concurrent deploys or test workers apply (the others wait)
 * must be held by the very connection that migrates.
 */
export async function runMigrations(): Promise<MigrateResult> {
  const driver = await getDriver();
  const folder = { migrationsFolder: migrationsFolder() };
  if (driver === "pglite") {
    // One process owns a PGlite directory (see pglite-lock.ts): nothing to race with.
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const db = await getDb();
    await migrate(db as never, folder);
    const functions = await applyFunctionFiles(pgliteSession((db as unknown as { $client: Parameters<typeof pgliteSession>[0] }).$client));
    return { ...(await migrationStatus(db)), functions };
  }
  const config = resolveDatabaseConfig();
  if (config.driver === "pglite") throw new Error("unreachable: the driver is PGlite");
  const url = config.directUrl;
  let client: Client;
  let migrate: (db: never, f: typeof folder) => Promise<void>;
  let db: unknown;
  if (driver === "neon") {
    const { Client } = await import("@neondatabase/serverless");
    const { drizzle } = await import("drizzle-orm/neon-serverless");
    client = new Client({ connectionString: url }) as unknown as Client;
    db = drizzle({ client: client as never });
    migrate = (await import("drizzle-orm/neon-serverless/migrator")).migrate as never;
  } else {
    const { default: pg } = await import("pg");
    const { drizzle } = await import("drizzle-orm/node-postgres");
    client = new pg.Client({ connectionString: url });
    db = drizzle({ client: client as never });
    migrate = (await import("drizzle-orm/node-postgres/migrator")).migrate as never;
  }
  let functions: FunctionsApplied;
  await client.connect();
  try {
    await client.query(LOCK);
    try {
      await migrate(db as never, folder);
      // The same connection, under the same lock: of several deploys at once, one applies each file.
      functions = await applyFunctionFiles(clientSession(client));
    } finally {
      await client.query(UNLOCK);
    }
  } finally {
    await client.end();
  }
  return { ...(await migrationStatus(await getDb())), functions };
}
