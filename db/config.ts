import path from "node:path";
import { ConfigError, databaseEnv, type DatabaseEnv as Env } from "./env";

export type DatabaseConfig =
  | { driver: "pglite"; dataDir: string; snapshot?: string }
  | { driver: "neon"; url: string; directUrl: string; wsProxy?: string; poolMax: number; idleTimeoutMs: number }
  | { driver: "pg"; url: string; directUrl: string; poolMax: number; idleTimeoutMs: number; preparedStatements: boolean };

export type DriverName = DatabaseConfig["driver"];

const NEON_HOST = /\.neon\.(tech|build)$/i;

/** Picks the driver from DATABASE_URL: unset → embedded PGlite, a Neon host → Neon, else node-postgres. */
type DatabaseEnv = Pick<Env, "DATABASE_URL" | "DATABASE_DRIVER" | "AGENTDRAFT_DATA_DIR" | "NEON_WS_PROXY" | "DATABASE_POOL_MAX"> & Partial<Pick<Env, "DATABASE_URL_UNPOOLED" | "DATABASE_IDLE_TIMEOUT_MS" | "DATABASE_PREPARED_STATEMENTS" | "AGENTDRAFT_PGLITE_SNAPSHOT">>;

export function resolveDatabaseConfig(e: DatabaseEnv = databaseEnv()): DatabaseConfig {
  const url = e.DATABASE_URL;
  if (!url || e.DATABASE_DRIVER === "pglite") {
    const dataDir = e.AGENTDRAFT_DATA_DIR;
    if (!dataDir.startsWith("memory://")) return { driver: "pglite", dataDir: path.resolve(dataDir) };
    return { driver: "pglite", dataDir, snapshot: e.AGENTDRAFT_PGLITE_SNAPSHOT };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      `DATABASE_URL is not a valid URL. Expected postgres://user:password@host:5432/dbname, or leave it unset to use the embedded database.`,
    );
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new ConfigError(
      `DATABASE_URL must start with postgres:// or postgresql:// (got "${parsed.protocol}//"). Leave it unset to use the embedded database.`,
    );
  }
  if (!parsed.hostname) throw new ConfigError("DATABASE_URL has no host name.");
  if (e.DATABASE_DRIVER === "neon" || (!e.DATABASE_DRIVER && NEON_HOST.test(parsed.hostname))) {
    return { driver: "neon", url, directUrl: e.DATABASE_URL_UNPOOLED ?? url, wsProxy: e.NEON_WS_PROXY, poolMax: e.DATABASE_POOL_MAX, idleTimeoutMs: e.DATABASE_IDLE_TIMEOUT_MS ?? 5_000 };
  }
  // A long-lived server keeps an idle connection for minutes: Postgres caches the engine's plans per connection.
  return { driver: "pg", url, directUrl: e.DATABASE_URL_UNPOOLED ?? url, poolMax: e.DATABASE_POOL_MAX, idleTimeoutMs: e.DATABASE_IDLE_TIMEOUT_MS ?? 300_000, preparedStatements: e.DATABASE_PREPARED_STATEMENTS !== "off" };
}

/**
 * What to tell an operator when migrations would run through DATABASE_URL because
 * DATABASE_URL_UNPOOLED is unset: they take a session advisory lock, which a transaction-mode
 * pooler (PgBouncer, Neon's pooled URL) may take on one server connection and release on
 * another, leaving it held and the next deploy's migrations waiting. Null when migrations have
 * a direct URL, or the database is the embedded one.
 */
export function migrationUrlWarning(e: DatabaseEnv = databaseEnv()): string | null {
  const config = resolveDatabaseConfig(e);
  if (config.driver === "pglite" || e.DATABASE_URL_UNPOOLED) return null;
  const host = new URL(config.url).hostname;
  if (/-pooler\./i.test(host)) {
    return `DATABASE_URL_UNPOOLED is not set, so migrations run through DATABASE_URL, which is a pooled URL (${host}: PgBouncer in transaction mode). Their advisory lock can stay held on a pooled connection and stall the next deploy's migrations. Set DATABASE_URL_UNPOOLED to the direct URL (the Neon integration sets it).`;
  }
  return `DATABASE_URL_UNPOOLED is not set, so migrations run through DATABASE_URL (${host}). That is right for a direct connection; if DATABASE_URL goes through a pooler in transaction mode (PgBouncer, Neon's pooled URL), set DATABASE_URL_UNPOOLED to the direct URL.`;
}

/** The URL with its password removed, for logs and health output. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable)";
  }
}
