import { z } from "zod";

/** A setting an operator must fix; the message says which one and how. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The environment variables the data floor reads, validated here so that db/ stands on nothing
 * of lib/: lib/platform/config/env.ts takes them into the whole schema (and documents them).
 */
export const databaseEnvSchema = z.object({
  DATABASE_URL: z.string().trim().min(1).optional(),
  DATABASE_URL_UNPOOLED: z.string().trim().min(1).optional(),
  DATABASE_DRIVER: z.enum(["pglite", "neon", "pg"]).optional(),
  AGENTDRAFT_DATA_DIR: z.string().trim().min(1).default(".data"),
  AGENTDRAFT_PGLITE_SNAPSHOT: z.string().trim().min(1).optional(),
  NEON_WS_PROXY: z.string().trim().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  DATABASE_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  DATABASE_PREPARED_STATEMENTS: z.enum(["on", "off"]).default("on"),
});

export type DatabaseEnv = z.infer<typeof databaseEnvSchema>;

/** Throws the same ConfigError, in the same words, as the whole schema's check. */
export function parseEnvironment<T extends z.ZodTypeAny>(schema: T, source: Record<string, string | undefined> = process.env): z.infer<T> {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** The database's settings, read from process.env at each call (a test changes them between databases). */
export const databaseEnv = (): DatabaseEnv => parseEnvironment(databaseEnvSchema);
