import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { getDb, getDriver } from "./client";
import { migrationStatus, type MigrationStatus } from "./migration-status";

const migrationsFolder = () => fileURLToPath(new URL("./migrations", import.meta.url));

/** Applies every pending migration in db/migrations with the driver's own migrator. Idempotent. */
export async function runMigrations(): Promise<MigrationStatus> {
  const db = await getDb();
  const driver = await getDriver();
  const folder = { migrationsFolder: migrationsFolder() };
  if (driver === "pglite") {
    // One process owns a PGlite directory (see pglite-lock.ts): nothing to race with.
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(db as never, folder);
    return migrationStatus(db);
  }
  const { migrate } =
    driver === "neon"
      ? await import("drizzle-orm/neon-serverless/migrator")
      : await import("drizzle-orm/node-postgres/migrator");
  // Several deploys or test workers may migrate at once: an advisory lock, held on its own
  // connection for the whole run, lets exactly one apply while the others wait.
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('agentdraft:migrate'))`);
    await migrate(db as never, folder);
  });
  return migrationStatus(db);
}
