import { runMigrations } from "../db/migrate";
import { migrationStatus } from "../db/migration-status";
import { functionsStatus } from "../db/functions-status";
import { getDriver } from "../db/client";
import { resolveDatabaseConfig } from "../db/config";

/** The database's schema is older than this code, and the CLI must not migrate it on its own. */
export class SchemaBehindError extends Error {
  override name = "SchemaBehindError";
}

/**
 * Before a command reads or writes records: the embedded database is migrated as `npm run dev`
 * does (it belongs to this machine, and a fresh data directory has no tables yet); a database
 * server is left to `db migrate` (a deploy's step), and the command says exactly that.
 */
export async function ensureSchema(notice: { write(text: string): unknown }): Promise<void> {
  const { pending } = await migrationStatus();
  const embedded = (await getDriver()) === "pglite";
  // The embedded database also takes a changed function file (db/functions) here, as `npm run dev` does.
  if (pending.length === 0 && !(embedded && (await functionsStatus()).pending.length > 0)) return;
  if (embedded) {
    const config = resolveDatabaseConfig();
    const status = await runMigrations();
    const where = config.driver === "pglite" ? config.dataDir : "the embedded database";
    if (pending.length === 0) notice.write(`Applied changed database functions to the embedded database in ${where}: ${status.functions.applied.join(", ")}.\n`);
    else notice.write(`Migrated the embedded database in ${where} (${pending.length} migration${pending.length === 1 ? "" : "s"}, latest ${status.latest}).\n`);
    return;
  }
  throw new SchemaBehindError(
    `The database at DATABASE_URL is not migrated (${pending.length} pending, from ${pending[0]}). Run \`npx agentdraft db migrate\` (with the same DATABASE_URL) first, then this command again.`,
  );
}
