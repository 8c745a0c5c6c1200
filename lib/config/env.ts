import { z } from "zod";

/** Every environment variable AgentDraft reads, validated once. The README's configuration table mirrors this. */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().trim().min(1).optional(),
  /** A direct (not pooled) URL of the same database, for migrations (Neon's integration sets it). Default: DATABASE_URL. */
  DATABASE_URL_UNPOOLED: z.string().trim().min(1).optional(),
  DATABASE_DRIVER: z.enum(["pglite", "neon", "pg"]).optional(),
  AGENTDRAFT_DATA_DIR: z.string().trim().min(1).default(".data"),
  /** An in-memory embedded database (AGENTDRAFT_DATA_DIR=memory://) starts from this PGlite snapshot (a `dumpDataDir` tarball) instead of an empty cluster: the test suite migrates one and starts every file from it. */
  AGENTDRAFT_PGLITE_SNAPSHOT: z.string().trim().min(1).optional(),
  NEON_WS_PROXY: z.string().trim().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  /** Neon driver: an idle connection is closed after this long (short, so a frozen serverless instance keeps none that went stale). */
  DATABASE_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  /** node-postgres: the request path's fixed statements as named prepared statements (db/prepared.ts); `off` behind a transaction-mode pooler that does not track them. */
  DATABASE_PREPARED_STATEMENTS: z.enum(["on", "off"]).default("on"),
  /** Token bucket per API key: sustained requests per second, and the burst it allows. */
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  API_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  /** The same for all keys of one workspace together. */
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(200),
  API_WORKSPACE_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(1000),
  /** Full recomputations of one workspace's audit chain per minute (GET /v1/audit/verify, MCP verify_audit_chain). */
  AUDIT_VERIFY_PER_MINUTE: z.coerce.number().positive().default(30),
  API_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Bounds for a hold's time to live, and the TTL when a request gives none. */
  HOLD_TTL_MIN_SECONDS: z.coerce.number().int().min(1).default(5),
  HOLD_TTL_MAX_SECONDS: z.coerce.number().int().min(1).default(3600),
  HOLD_TTL_DEFAULT_SECONDS: z.coerce.number().int().min(1).default(60),
  /** The domain of new inbox addresses (`name@AGENTDRAFT_MAIL_DOMAIN`). */
  AGENTDRAFT_MAIL_DOMAIN: z.string().trim().toLowerCase().regex(/^[a-z0-9.-]+\.[a-z]{2,}$|^localhost$/, "a domain such as agents.example.com").default("agents.localhost"),
  /** authserv-ids (comma-separated) of the MTAs whose Authentication-Results headers are trusted (the one that delivers to us). Empty: none is. */
  MAIL_TRUSTED_AUTHSERV_ID: z.string().default(""),
  /** Extra local parts no inbox may take (comma-separated), beside the built-in role and system names. */
  MAIL_RESERVED_LOCAL_PARTS: z.string().default(""),
  /** Bearer secret for POST /api/inbound/raw. Unset: that endpoint refuses every request. */
  INBOUND_SECRET: z.string().min(16, "use at least 16 characters").optional(),
  /** Largest inbound message (raw bytes, attachments included). Default 10 MiB; 4 MiB on Vercel (its request bodies stop at 4.5 MB). */
  MAIL_MAX_BYTES: z.coerce.number().int().min(1024).default(() => (process.env.VERCEL ? 4 * 1024 * 1024 : 10 * 1024 * 1024)),
  /** Hard limits on what one message may contain; over one, it is refused whole with a reason (SPEC §10). */
  MAIL_MAX_HEADER_BYTES: z.coerce.number().int().min(4096).default(256 * 1024),
  MAIL_MAX_MIME_PARTS: z.coerce.number().int().min(2).default(250),
  MAIL_MAX_RECIPIENTS: z.coerce.number().int().min(1).default(500),
  MAIL_MAX_HTML_ELEMENTS: z.coerce.number().int().min(100).default(50_000),
  MAIL_MAX_HTML_DEPTH: z.coerce.number().int().min(16).default(256),
  /** Threads that parse and sanitise mail off the request's event loop (0: on it), and the time one message may take. */
  MAIL_PARSE_WORKERS: z.coerce.number().int().min(0).max(64).default(2),
  MAIL_PARSE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** The SMTP listener: concurrent connections, recipients per message, idle and total time per connection. */
  SMTP_MAX_CLIENTS: z.coerce.number().int().min(1).default(100),
  SMTP_MAX_RECIPIENTS: z.coerce.number().int().min(1).default(100),
  SMTP_SOCKET_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  SMTP_MAX_CONNECTION_SECONDS: z.coerce.number().int().min(1).default(600),
  /** References kept per message (the first and the most recent, trimmed in the middle as RFC 5322 allows). */
  MAIL_MAX_REFERENCES: z.coerce.number().int().min(2).default(100),
  /** Characters of a message's text, markdown and sanitised HTML kept each; beyond, cut (`body_truncated`), the whole in the raw source. */
  MAIL_MAX_BODY_CHARS: z.coerce.number().int().min(1024).default(256 * 1024),
  /**
   * Comma-separated base64 keys of 32 bytes for AES-256-GCM at rest; the first encrypts, all
   * decrypt (rotation). Required in production; in development a key is kept in the data dir.
   */
  AGENTDRAFT_ENCRYPTION_KEYS: z.string().trim().min(1).optional(),
  /** Hosts and CIDRs webhook delivery may reach although private or loopback (and over plain http). */
  WEBHOOK_ALLOWED_HOSTS: z.string().default(""),
  /** How long a webhook endpoint has to answer. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** GET /v1/events: open streams per API key, a connection's longest life (the client resumes with Last-Event-ID), heartbeat and polling intervals. */
  EVENTS_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(100).default(5),
  EVENTS_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(280),
  EVENTS_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  EVENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  /** The web app's live channel (/api/live): open connections per member, across their tabs and devices. */
  LIVE_STREAMS_PER_MEMBER: z.coerce.number().int().min(1).max(100).default(10),
  /** Inngest Cloud keys, read by the Inngest SDK too. Set both to run background work on Inngest. */
  INNGEST_EVENT_KEY: z.string().trim().min(1).optional(),
  INNGEST_SIGNING_KEY: z.string().trim().min(1).optional(),
  /** Set (to 1) to serve /api/inngest to a local Inngest dev server, without keys. */
  INNGEST_DEV: z.string().trim().min(1).optional(),
  /** Who runs background jobs: the built-in runner, Inngest, or nobody. Default: inngest when its keys are set. */
  JOB_RUNNER: z.enum(["embedded", "inngest", "off"]).optional(),
  /** The embedded engine: how many units of work run at once (webhook deliveries, mails, timers...). */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  /** The embedded engine: with nothing due, how long before it asks the database again (work from other processes). Default: 2 s on a Postgres server, 60 s on PGlite (one process). */
  JOB_IDLE_POLL_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  /**
   * The secret a visitor must give to run first-run setup (become the first owner). Required in
   * production for /setup to open; in development one is kept in the data dir and printed at start.
   */
  AGENTDRAFT_SETUP_TOKEN: z.string().trim().min(16, "use at least 16 characters (openssl rand -base64 24)").optional(),
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
  /** Set (to 1) to run production without RESEND_API_KEY on purpose: mail is only captured in the database, never sent. */
  MAIL_CAPTURE_ONLY: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  /** Set by Vercel: `production`, `preview` or `development`. A preview captures outbound effects (lib/config/preview.ts). */
  VERCEL_ENV: z.enum(["production", "preview", "development"]).optional(),
  /** Set (to 1) on a non-production deployment elsewhere than Vercel: outbound effects are captured, not sent. */
  AGENTDRAFT_PREVIEW: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  /** On a preview, the kinds of outbound effect that are really sent anyway (comma-separated: webhooks, mail, notifications, calendar). */
  AGENTDRAFT_PREVIEW_SEND: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((k) => k.trim()).filter(Boolean))
    .pipe(z.array(z.enum(["webhooks", "mail", "notifications", "calendar"], { error: "AGENTDRAFT_PREVIEW_SEND takes webhooks, mail, notifications and calendar, comma-separated" }))),
  /** Resend's API address; set only to point the client at another server (a local fake in tests). */
  RESEND_BASE_URL: z.url().optional(),
  /**
   * Largest message fetched from Resend's API (its raw download, attachments included). Not a
   * request body, so Vercel's 4.5 MB limit does not apply: the download is streamed and cut here.
   */
  RESEND_INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).default(25 * 1024 * 1024),
  /** The signing secret (`whsec_...`) of the Resend webhook that posts to /api/inbound/resend. */
  RESEND_WEBHOOK_SECRET: z.string().trim().startsWith("whsec_", "Resend's webhook signing secret starts with whsec_").optional(),
  /** Google Calendar sync (OAuth client of a Google Cloud project). Both unset: Google is not configured; the app runs without it. */
  GOOGLE_CLIENT_ID: z.string().trim().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** Where the Google APIs and OAuth endpoints live: Google's by default; tests and self-hosters may point them elsewhere. */
  GOOGLE_API_ROOT_URL: z.url().default("https://www.googleapis.com/"),
  GOOGLE_OAUTH_AUTH_URL: z.url().default("https://accounts.google.com/o/oauth2/v2/auth"),
  GOOGLE_OAUTH_TOKEN_URL: z.url().default("https://oauth2.googleapis.com/token"),
  GOOGLE_OAUTH_REVOKE_URL: z.url().default("https://oauth2.googleapis.com/revoke"),
  /** The public https origin Google sends push notifications to. Unset: AUTH_URL when it is https; otherwise no push, periodic resync only. */
  GOOGLE_PUSH_BASE_URL: z.url().optional(),
  /** Periodic resync of each linked calendar (the safety net under push notifications). */
  GOOGLE_SYNC_INTERVAL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  /** Requests per second per Google connection (token bucket, burst of twice that). */
  GOOGLE_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(1000).default(5),
  /** First backoff after a 403/429 quota answer; doubles per retry, with jitter. */
  GOOGLE_BACKOFF_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  /** Microsoft 365 / Outlook sync (an app registration in Microsoft Entra ID, a web platform with a client secret). Both unset: Microsoft is not configured. */
  MICROSOFT_CLIENT_ID: z.string().trim().min(1).optional(),
  MICROSOFT_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** The tenant in the authority URL: `common` (work, school and personal accounts), `organizations`, `consumers`, or one tenant's id or domain. */
  MICROSOFT_TENANT: z.string().trim().regex(/^[A-Za-z0-9.-]+$/, "a tenant id, domain, common, organizations or consumers").default("common"),
  /** Where the identity platform and Graph live: Microsoft's by default; tests (a local fake) and national clouds point them elsewhere. */
  MICROSOFT_AUTHORITY_URL: z.url().default("https://login.microsoftonline.com"),
  MICROSOFT_GRAPH_URL: z.url().default("https://graph.microsoft.com/v1.0"),
  /** The public https origin Graph posts change notifications to. Unset: AUTH_URL when it is https; otherwise no subscriptions, periodic resync only. */
  MICROSOFT_NOTIFICATION_BASE_URL: z.url().optional(),
  /** Periodic resync of each linked Outlook calendar (the safety net under change notifications). */
  MICROSOFT_SYNC_INTERVAL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  /** Requests per second per Microsoft connection (token bucket, burst of twice that); Graph throttles per app and mailbox. */
  MICROSOFT_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(1000).default(4),
  /** First backoff after a 429/503 answer without Retry-After; doubles per retry, with jitter. */
  MICROSOFT_BACKOFF_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  /** Slack's Web API base URL (notification channels); set only to point the client at another server (a local fake in tests). */
  SLACK_API_URL: z.url().default("https://slack.com/api/"),
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
