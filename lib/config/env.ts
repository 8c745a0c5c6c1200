import { z } from "zod";

/** Every environment variable AgentDraft reads, validated once. The README's configuration table mirrors this. */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().trim().min(1).optional(),
  DATABASE_DRIVER: z.enum(["pglite", "neon", "pg"]).optional(),
  AGENTDRAFT_DATA_DIR: z.string().trim().min(1).default(".data"),
  NEON_WS_PROXY: z.string().trim().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  /** Token bucket per API key: sustained requests per second, and the burst it allows. */
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  API_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  API_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Signs and encrypts the web app's auth cookies. Required in production (see auth-secret.ts). */
  AUTH_SECRET: z.string().trim().min(32, "use at least 32 characters (openssl rand -base64 32)").optional(),
  /** The web app's public URL, when the Host header cannot be trusted to say it. */
  AUTH_URL: z.url().optional(),
  /** Trust the Host / X-Forwarded-Host headers for the web app's own URL (default true). */
  AUTH_TRUST_HOST: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  /** Set: mail is sent through Resend. Unset: mail is captured in the database and shown in the web app. */
  RESEND_API_KEY: z.string().trim().min(1).optional(),
  MAIL_FROM: z.string().trim().min(3).default("AgentDraft <agentdraft@localhost>"),
});

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  cached = parsed.data;
  return cached;
}

/** Tests that change process.env between databases call this. */
export function resetEnvCache(): void {
  cached = undefined;
}
