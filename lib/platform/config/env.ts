import { z } from "zod";
import { ConfigError, databaseEnvSchema, parseEnvironment } from "../../../db/env";

export { ConfigError };

/**
 * Every environment variable AgentDraft reads, validated once. What each means is in ENV_DOCS
 * below, from which docs/configuration.md and .env.example are generated.
 */
export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  ...databaseEnvSchema.shape,
  API_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  API_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  SCIM_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(10),
  SCIM_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(200),
  API_WORKSPACE_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(1000),
  AUDIT_VERIFY_PER_MINUTE: z.coerce.number().positive().default(30),
  API_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  HOLD_TTL_MIN_SECONDS: z.coerce.number().int().min(1).default(5),
  HOLD_TTL_MAX_SECONDS: z.coerce.number().int().min(1).default(3600),
  HOLD_TTL_DEFAULT_SECONDS: z.coerce.number().int().min(1).default(60),
  AGENTDRAFT_MAIL_DOMAIN: z.string().trim().toLowerCase().regex(/^[a-z0-9.-]+\.[a-z]{2,}$|^localhost$/, "a domain such as agents.example.com").default("agents.localhost"),
  MAIL_TRUSTED_AUTHSERV_ID: z.string().default(""),
  MAIL_RESERVED_LOCAL_PARTS: z.string().default(""),
  INBOUND_SECRET: z.string().min(16, "use at least 16 characters").optional(),
  MAIL_MAX_BYTES: z.coerce.number().int().min(1024).default(() => (process.env.VERCEL ? 4 * 1024 * 1024 : 10 * 1024 * 1024)),
  MAIL_MAX_HEADER_BYTES: z.coerce.number().int().min(4096).default(256 * 1024),
  MAIL_MAX_MIME_PARTS: z.coerce.number().int().min(2).default(250),
  MAIL_MAX_RECIPIENTS: z.coerce.number().int().min(1).default(500),
  MAIL_MAX_HTML_ELEMENTS: z.coerce.number().int().min(100).default(50_000),
  MAIL_MAX_HTML_DEPTH: z.coerce.number().int().min(16).default(256),
  MAIL_PARSE_WORKERS: z.coerce.number().int().min(0).max(64).default(2),
  MAIL_PARSE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  SMTP_MAX_CLIENTS: z.coerce.number().int().min(1).default(100),
  SMTP_MAX_RECIPIENTS: z.coerce.number().int().min(1).default(100),
  SMTP_SOCKET_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  SMTP_MAX_CONNECTION_SECONDS: z.coerce.number().int().min(1).default(600),
  MAIL_MAX_REFERENCES: z.coerce.number().int().min(2).default(100),
  MAIL_MAX_BODY_CHARS: z.coerce.number().int().min(1024).default(256 * 1024),
  AGENTDRAFT_ENCRYPTION_KEYS: z.string().trim().min(1).optional(),
  WEBHOOK_ALLOWED_HOSTS: z.string().default(""),
  SSO_DNS_SERVER: z
    .string()
    .trim()
    .regex(/^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]):\d{1,5}$/, "a loopback resolver as 127.0.0.1:PORT or [::1]:PORT (a DNS server on another host is refused)")
    .optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  EVENTS_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(100).default(5),
  EVENTS_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(280),
  EVENTS_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  EVENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  LIVE_STREAMS_PER_MEMBER: z.coerce.number().int().min(1).max(100).default(10),
  INNGEST_EVENT_KEY: z.string().trim().min(1).optional(),
  INNGEST_SIGNING_KEY: z.string().trim().min(1).optional(),
  INNGEST_DEV: z.string().trim().min(1).optional(),
  JOB_RUNNER: z.enum(["embedded", "inngest", "off"]).optional(),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  JOB_IDLE_POLL_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  AGENTDRAFT_SETUP_TOKEN: z.string().trim().min(16, "use at least 16 characters (openssl rand -base64 24)").optional(),
  AUTH_SECRET: z.string().trim().min(32, "use at least 32 characters (openssl rand -base64 32)").optional(),
  AUTH_URL: z.url().optional(),
  AUTH_TRUST_HOST: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  RESEND_API_KEY: z.string().trim().min(1).optional(),
  MAIL_FROM: z.string().trim().min(3).default("AgentDraft <agentdraft@localhost>"),
  MAIL_CAPTURE_ONLY: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  VERCEL_ENV: z.enum(["production", "preview", "development"]).optional(),
  AGENTDRAFT_PREVIEW: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  AGENTDRAFT_PREVIEW_SEND: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((k) => k.trim()).filter(Boolean))
    .pipe(z.array(z.enum(["webhooks", "mail", "notifications", "calendar"], { error: "AGENTDRAFT_PREVIEW_SEND takes webhooks, mail, notifications and calendar, comma-separated" }))),
  RESEND_BASE_URL: z.url().optional(),
  RESEND_INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).default(25 * 1024 * 1024),
  RESEND_WEBHOOK_SECRET: z.string().trim().startsWith("whsec_", "Resend's webhook signing secret starts with whsec_").optional(),
  GOOGLE_CLIENT_ID: z.string().trim().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().trim().min(1).optional(),
  GOOGLE_API_ROOT_URL: z.url().default("https://www.googleapis.com/"),
  GOOGLE_OAUTH_AUTH_URL: z.url().default("https://accounts.google.com/o/oauth2/v2/auth"),
  GOOGLE_OAUTH_TOKEN_URL: z.url().default("https://oauth2.googleapis.com/token"),
  GOOGLE_OAUTH_REVOKE_URL: z.url().default("https://oauth2.googleapis.com/revoke"),
  GOOGLE_PUSH_BASE_URL: z.url().optional(),
  GOOGLE_SYNC_INTERVAL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  GOOGLE_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(1000).default(5),
  GOOGLE_BACKOFF_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  MICROSOFT_CLIENT_ID: z.string().trim().min(1).optional(),
  MICROSOFT_CLIENT_SECRET: z.string().trim().min(1).optional(),
  MICROSOFT_TENANT: z.string().trim().regex(/^[A-Za-z0-9.-]+$/, "a tenant id, domain, common, organizations or consumers").default("common"),
  MICROSOFT_AUTHORITY_URL: z.url().default("https://login.microsoftonline.com"),
  MICROSOFT_GRAPH_URL: z.url().default("https://graph.microsoft.com/v1.0"),
  MICROSOFT_NOTIFICATION_BASE_URL: z.url().optional(),
  MICROSOFT_SYNC_INTERVAL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  MICROSOFT_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(1000).default(4),
  MICROSOFT_BACKOFF_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  SLACK_API_URL: z.url().default("https://slack.com/api/"),
});

/** The sections of the configuration page, in order. */
export const ENV_GROUPS = ["Database", "API", "Holds", "Mail", "SMTP listener", "Secrets and sign-in", "Sending mail", "Previews", "Google Calendar", "Microsoft 365", "Webhooks", "Event stream", "Background work", "Notification channels", "Runtime", "Tests and benchmarks"] as const;

/**
 * How one variable is documented. docs/configuration.md and .env.example are generated from these
 * (`npm run docs:generate`; lib/composition/docs/generated-docs.test.ts fails when either is stale).
 */
export type EnvDoc = {
  group: (typeof ENV_GROUPS)[number];
  /** What it does. */
  about: string;
  /** The default in words, where the schema has none or it depends on where it runs (else the schema's own is shown). */
  default?: string;
  /** When production needs it (start-up refuses or locks something without it). */
  production?: string;
};

const REQUIRED = "**required**: the server refuses to start without it";

/** Every variable of the schema, documented: the type fails to check when one is missing. */
export const ENV_DOCS = {
  DATABASE_URL: {
    group: "Database",
    about: "Unset: the embedded database (PGlite; refused on Vercel). A Neon host (`*.neon.tech`): the Neon serverless driver over WebSocket. Any other `postgres://` URL: node-postgres. A malformed URL, or credentials or a database the server refuses, stops the server at start with a message saying why; a server that does not answer (a Neon compute waking up) does not: requests get 503 until it answers, checked again on each.",
    production: "required on Vercel (the Neon integration sets it)",
  },
  DATABASE_DRIVER: { group: "Database", about: "Force a driver: `pglite`, `neon` or `pg`.", default: "from the URL" },
  AGENTDRAFT_DATA_DIR: { group: "Database", about: "Where the embedded database lives. `memory://` keeps it in memory (tests)." },
  AGENTDRAFT_PGLITE_SNAPSHOT: {
    group: "Database",
    about: "With `AGENTDRAFT_DATA_DIR=memory://`: a PGlite snapshot (a `dumpDataDir` tarball) the in-memory database starts from instead of an empty cluster. The test suite migrates one per run (`test/global-setup-pglite.ts`) and starts every database test file from it.",
  },
  DATABASE_POOL_MAX: { group: "Database", about: "Connection pool size for `pg` and `neon`." },
  DATABASE_IDLE_TIMEOUT_MS: {
    group: "Database",
    about: "A connection idle this long is closed. The Neon driver's is short, so an instance frozen between requests keeps none that went stale (on Vercel the pool is also attached to the function's lifecycle, `attachDatabasePool`); a long-lived server on node-postgres keeps its connections for minutes, because Postgres caches the conflict engine's plans per connection and a new one plans them again.",
    default: "`5000` (Neon), `300000` (`pg`)",
  },
  DATABASE_PREPARED_STATEMENTS: {
    group: "Database",
    about: "node-postgres only: the request path's fixed statements (the API door, the conflict engine's one-statement changes) run as named prepared statements, so Postgres parses and plans each once per connection (`db/prepared.ts`). Set `off` behind a pooler in transaction mode that does not track prepared statements (PgBouncer before 1.21); if one refuses a statement anyway, the server says so once and runs them unnamed from then on. PGlite and Neon's driver always run them unnamed.",
  },
  DATABASE_URL_UNPOOLED: {
    group: "Database",
    about: "A direct (not pooled) URL of the same database, used only by migrations: they hold an advisory lock on their own connection, which a transaction-mode pooler (Neon's pooled URL) cannot keep. Neon's Vercel integration sets it. Unset with a database server, `db migrate` (so the build log) and the server's start-up say that migrations run through `DATABASE_URL`, louder when its host is a `-pooler` one.",
    default: "`DATABASE_URL`",
    production: "with a pooled `DATABASE_URL` (Neon's): the direct URL",
  },
  NEON_WS_PROXY: { group: "Database", about: "`host:port/path` of a WebSocket-to-TCP proxy for the Neon driver (Neon's local-development setup); unset in production." },
  API_RATE_LIMIT_BURST: { group: "API", about: "Requests a key may make at once (token bucket size)." },
  API_RATE_LIMIT_PER_SECOND: { group: "API", about: "Sustained requests per second per key (refill rate)." },
  SCIM_RATE_LIMIT_PER_SECOND: { group: "API", about: "SCIM (`/scim/v2`): sustained requests per second per SCIM token (refill rate); past the burst, 429 with `Retry-After`." },
  SCIM_RATE_LIMIT_BURST: { group: "API", about: "SCIM: requests a SCIM token may make at once (token bucket size); an identity provider's first full sync comes in bursts." },
  API_WORKSPACE_RATE_LIMIT_BURST: { group: "API", about: "Requests all keys of one workspace may make at once, beside each key's own bucket (429 with `scope: \"workspace\"`)." },
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: { group: "API", about: "Sustained requests per second of one workspace, all keys together." },
  AUDIT_VERIFY_PER_MINUTE: { group: "API", about: "Full recomputations of one workspace's audit chain a minute (`GET /v1/audit/verify` and MCP `verify_audit_chain` together; burst a third of it); over it, 429." },
  API_MAX_BODY_BYTES: { group: "API", about: "Largest request body; larger is 413. The mail routes that take attachments (send, reply) allow 25 MB of base64 more (docs/mail.md#attachments)." },
  HOLD_TTL_MIN_SECONDS: { group: "Holds", about: "Shortest hold TTL accepted." },
  HOLD_TTL_MAX_SECONDS: { group: "Holds", about: "Longest hold TTL accepted." },
  HOLD_TTL_DEFAULT_SECONDS: { group: "Holds", about: "TTL of a hold placed without `hold_ttl_seconds`." },
  AGENTDRAFT_MAIL_DOMAIN: { group: "Mail", about: "Domain of new inbox addresses (`name@AGENTDRAFT_MAIL_DOMAIN`).", production: "with Resend: a domain verified there (`localhost`, `.local`, `.test`, `.example`, `.invalid` names are refused)" },
  MAIL_TRUSTED_AUTHSERV_ID: {
    group: "Mail",
    about: "Comma-separated authserv-ids of the MTAs that deliver mail to `/api/inbound/raw` or Resend (the first token of their `Authentication-Results` header, e.g. `mx.example.com`). Only the topmost such header, with one of these ids, is believed; every other is the sender's own claim. Empty: raw and Resend mail carries no SPF/DKIM/DMARC verdict. (The SMTP listener verifies for itself.)",
  },
  MAIL_RESERVED_LOCAL_PARTS: {
    group: "Mail",
    about: "Comma-separated local parts no inbox may take, beside the built-in ones (RFC 2142 role names, `admin`, `administrator`, `root`, `mailer-daemon`, `noreply`... and the local part of `MAIL_FROM`); taking one is 409.",
  },
  INBOUND_SECRET: { group: "Mail", about: "Bearer secret (16+ characters) for `POST /api/inbound/raw`; unset, that endpoint answers 503." },
  MAIL_MAX_BYTES: {
    group: "Mail",
    about: "Largest inbound message, attachments included; larger is refused whole. On Vercel, above 4.5 MB (its request body limit) is refused at start.",
    default: "`10485760`; on Vercel `4194304`",
    production: "on Vercel at most 4500000",
  },
  MAIL_MAX_HEADER_BYTES: { group: "Mail", about: "Largest header section of a message or of one MIME part (each line counts at least 64 bytes); larger is refused whole (`headers_too_large`)." },
  MAIL_MAX_MIME_PARTS: { group: "Mail", about: "Most MIME parts (attachments, alternatives, nested multiparts) in one message; more is refused whole (`too_many_parts`)." },
  MAIL_MAX_RECIPIENTS: { group: "Mail", about: "Most addresses in a received message's To and Cc together; more is refused whole (`too_many_recipients`)." },
  MAIL_MAX_HTML_ELEMENTS: { group: "Mail", about: "Most HTML elements in a message's HTML body; more is refused whole (`too_many_html_elements`)." },
  MAIL_MAX_HTML_DEPTH: { group: "Mail", about: "Deepest nesting of HTML elements (unclosed ones count); deeper is refused whole (`html_too_deep`)." },
  MAIL_PARSE_WORKERS: { group: "Mail", about: "Worker threads (piscina) that parse and sanitise mail off the server's event loop; `0` parses on it (also the fallback where the worker's source is not deployed)." },
  MAIL_PARSE_TIMEOUT_MS: { group: "Mail", about: "Longest one message may take to parse; past it its thread is ended and the message refused whole (`parse_timeout`). Waiting for a busy thread, or for a new one to start, does not count." },
  MAIL_MAX_REFERENCES: { group: "Mail", about: "References ids kept per message: the first and the most recent, trimmed in the middle as RFC 5322 allows." },
  MAIL_MAX_BODY_CHARS: {
    group: "Mail",
    about: "Characters kept of a received message's `text`, `markdown`, `html_sanitized`, `text_reply`, `extracted_text` and `extracted_html` each; beyond, cut (`body_truncated: true`; the message is stored, the whole in `GET /v1/messages/{id}/raw`). Outbound mail is kept whole (the API bounds `text` at 500,000).",
  },
  SMTP_MAX_CLIENTS: { group: "SMTP listener", about: "Concurrent connections the SMTP listener takes; more get `421`." },
  SMTP_MAX_RECIPIENTS: { group: "SMTP listener", about: "Recipients per message over SMTP; more get `452` (the sender delivers them in another transaction)." },
  SMTP_SOCKET_TIMEOUT_MS: { group: "SMTP listener", about: "An SMTP connection idle this long is closed." },
  SMTP_MAX_CONNECTION_SECONDS: { group: "SMTP listener", about: "Longest an SMTP connection may last, however busy it keeps itself." },
  AGENTDRAFT_ENCRYPTION_KEYS: {
    group: "Secrets and sign-in",
    about: "Comma-separated base64 32-byte keys (`openssl rand -base64 32`) for AES-256-GCM sealing of secrets at rest (receipt signing keys, webhook endpoint secrets, calendar and channel tokens); the first encrypts, all decrypt, so add a new key first to rotate.",
    default: "dev: a key kept in the data dir",
    production: REQUIRED,
  },
  AGENTDRAFT_SETUP_TOKEN: {
    group: "Secrets and sign-in",
    about: "The secret `/setup` asks for before the first owner is created (16+ characters, `openssl rand -base64 24`). In development one is made and the server prints the link carrying it. **In production, unset means setup is locked**: set it, or invite the first owner with `npx agentdraft member invite --role owner`.",
    default: "dev: made and kept in the data dir",
    production: "for the first owner (unset: `/setup` stays locked)",
  },
  AUTH_SECRET: {
    group: "Secrets and sign-in",
    about: "Signs and encrypts the web app's session and passkey-challenge cookies; 32+ characters (`openssl rand -base64 32`). In development a fixed, publicly known dev-only secret is used when it is unset.",
    production: REQUIRED,
  },
  AUTH_URL: {
    group: "Secrets and sign-in",
    about: "The web app's public origin (`https://agentdraft.example.com`): passkey relying-party checks and every link AgentDraft writes (invitations, approval notices and escalations, channel messages, OAuth callbacks, the first-run link), derived once for requests and background jobs alike (`lib/platform/config/public-url.ts`; a job has no Host header to go by). Unset: on Vercel, the deployment's own address (`VERCEL_PROJECT_PRODUCTION_URL` in production, the branch URL on a preview); elsewhere outside production, `http://localhost:$PORT`.",
    production: "**required** (on Vercel the deployment's address stands in): a production server without it does not start, saying to set it",
  },
  AUTH_TRUST_HOST: { group: "Secrets and sign-in", about: "Trust the `Host` / `X-Forwarded-Host` headers to say the app's URL (needed behind a proxy and on `next start`). Set `false` together with `AUTH_URL` to pin it.", default: "`true`" },
  RESEND_API_KEY: {
    group: "Sending mail",
    about: "Set: outgoing mail (invitations, notifications, agents' messages) is sent through Resend; then `AGENTDRAFT_MAIL_DOMAIN` and `MAIL_FROM` must be on a real domain (the `localhost` defaults are refused at start in production). Unset: it is captured in the database and shown in the web app (Captured mail; agents' mail under Inboxes).",
    production: "**required** unless `MAIL_CAPTURE_ONLY=1`",
  },
  MAIL_FROM: { group: "Sending mail", about: "The sender of outgoing mail; with Resend, an address on a domain verified there.", production: "with Resend: a sender on a verified domain" },
  MAIL_CAPTURE_ONLY: { group: "Sending mail", about: "`1`: run production without `RESEND_API_KEY` on purpose (mail only captured, never sent)." },
  RESEND_WEBHOOK_SECRET: { group: "Sending mail", about: "The signing secret (`whsec_...`) of the Resend webhook posting to `/api/inbound/resend`; unset, that endpoint answers 503." },
  RESEND_BASE_URL: { group: "Sending mail", about: "Points the Resend client elsewhere (the tests use a local fake).", default: "Resend's API" },
  RESEND_INBOUND_MAX_BYTES: {
    group: "Sending mail",
    about: "Largest received message fetched from Resend's API (attachments included): streamed and cut there, refused whole. Not a request body, so `MAIL_MAX_BYTES` and Vercel's 4.5 MB do not apply.",
  },
  VERCEL_ENV: { group: "Previews", about: "Set by Vercel: `production`, `preview` or `development`. A preview captures outbound effects (`lib/platform/config/preview.ts`)." },
  AGENTDRAFT_PREVIEW: {
    group: "Previews",
    about: "`1`: a non-production deployment. Webhooks, mail, channel notices and calendar writes are captured and shown (`/captured`, `/mail`), not sent; a banner says so.",
    default: "unset (`VERCEL_ENV=preview` means yes)",
  },
  AGENTDRAFT_PREVIEW_SEND: { group: "Previews", about: "On a preview, the kinds sent anyway, comma-separated: `webhooks`, `mail`, `notifications`, `calendar`." },
  GOOGLE_CLIENT_ID: {
    group: "Google Calendar",
    about: "The OAuth client id of your Google Cloud project (Google Calendar sync). Unset, together with `GOOGLE_CLIENT_SECRET`: Google is not configured and the app runs without it. One without the other stops the server at start.",
  },
  GOOGLE_CLIENT_SECRET: { group: "Google Calendar", about: "That OAuth client's secret." },
  GOOGLE_PUSH_BASE_URL: {
    group: "Google Calendar",
    about: "The public `https://` origin Google sends push notifications to (`/api/google/notifications`). Without an https origin, no push channels are opened and linked calendars rely on the periodic resync.",
    default: "`AUTH_URL` if https",
    production: "https, if set",
  },
  GOOGLE_SYNC_INTERVAL_SECONDS: { group: "Google Calendar", about: "How often each linked calendar is resynced from Google (the safety net under push)." },
  GOOGLE_RATE_LIMIT_PER_SECOND: { group: "Google Calendar", about: "Calls per second to Google per connected account (burst twice that), across all instances." },
  GOOGLE_BACKOFF_BASE_MS: { group: "Google Calendar", about: "First wait after a 403/429 quota answer; doubles per retry (5 tries), with jitter." },
  GOOGLE_API_ROOT_URL: { group: "Google Calendar", about: "Where the Google Calendar API is; tests point it at the fake Google server." },
  GOOGLE_OAUTH_AUTH_URL: { group: "Google Calendar", about: "Google's OAuth consent endpoint, overridable for tests and self-hosters." },
  GOOGLE_OAUTH_TOKEN_URL: { group: "Google Calendar", about: "Google's OAuth token endpoint, overridable for tests and self-hosters." },
  GOOGLE_OAUTH_REVOKE_URL: { group: "Google Calendar", about: "Google's OAuth revocation endpoint, overridable for tests and self-hosters." },
  MICROSOFT_CLIENT_ID: {
    group: "Microsoft 365",
    about: "The application (client) id of your Microsoft Entra app registration (Microsoft 365 / Outlook sync). Unset, with `MICROSOFT_CLIENT_SECRET`: Microsoft is not configured. One without the other stops the server at start.",
  },
  MICROSOFT_CLIENT_SECRET: { group: "Microsoft 365", about: "That app registration's client secret." },
  MICROSOFT_TENANT: { group: "Microsoft 365", about: "The tenant in the authority URL: `common` (work, school and personal accounts), `organizations`, `consumers`, or a tenant id or domain." },
  MICROSOFT_AUTHORITY_URL: { group: "Microsoft 365", about: "The Microsoft identity platform (a national cloud, or a local fake in tests)." },
  MICROSOFT_GRAPH_URL: { group: "Microsoft 365", about: "Microsoft Graph." },
  MICROSOFT_NOTIFICATION_BASE_URL: {
    group: "Microsoft 365",
    about: "The public `https://` origin Graph posts change notifications to (`/api/microsoft/notifications`). Without one, no subscriptions; periodic resync only.",
    default: "`AUTH_URL` if https",
  },
  MICROSOFT_SYNC_INTERVAL_SECONDS: { group: "Microsoft 365", about: "How often each linked Outlook calendar is resynced (the safety net under notifications)." },
  MICROSOFT_RATE_LIMIT_PER_SECOND: { group: "Microsoft 365", about: "Graph calls per second per connected account (burst twice that), across all instances; Graph throttles per app and mailbox." },
  MICROSOFT_BACKOFF_BASE_MS: { group: "Microsoft 365", about: "First wait after a 429/503 without Retry-After; doubles per retry (5 tries), with jitter." },
  WEBHOOK_ALLOWED_HOSTS: {
    group: "Webhooks",
    about: "Comma-separated host names, IP addresses and CIDRs that webhook delivery (and other outbound calls to URLs an admin gave: notification webhooks, client metadata documents, SSO identity providers) may reach although they are private, loopback or otherwise refused (and over plain `http`), e.g. `localhost,127.0.0.1/32` in development. Empty: only public addresses, only `https`. A malformed entry stops the server at start.",
  },
  SSO_DNS_SERVER: {
    group: "Secrets and sign-in",
    about: "The DNS server that SSO domain verification asks for `_agentdraft.<domain>` TXT records, as `127.0.0.1:PORT` or `[::1]:PORT`: a resolver on this host (a local caching resolver, or the e2e suite's small DNS server). Any other address stops the server at start.",
    default: "the system's resolvers",
  },
  WEBHOOK_TIMEOUT_MS: { group: "Webhooks", about: "How long an endpoint has to answer a delivery." },
  EVENTS_STREAMS_PER_KEY: { group: "Event stream", about: "Open `GET /v1/events` streams per API key; one more is 429." },
  EVENTS_STREAM_MAX_SECONDS: { group: "Event stream", about: "A stream connection's longest life; then it ends cleanly and the client resumes with `Last-Event-ID`." },
  EVENTS_HEARTBEAT_SECONDS: { group: "Event stream", about: "Heartbeat interval of event streams (a stream's slot lapses after three missed)." },
  EVENTS_POLL_INTERVAL_MS: { group: "Event stream", about: "How often a stream asks the database for events committed by other server instances (this instance's commits wake it at once)." },
  LIVE_STREAMS_PER_MEMBER: { group: "Event stream", about: "The web app's live channel (`/api/live`): open connections per member, across their tabs and devices (1–100); one more is 429." },
  JOB_RUNNER: {
    group: "Background work",
    about: "Who runs background work: `embedded` (the engine in the server process), `inngest`, or `off`. Default: `inngest` when `INNGEST_SIGNING_KEY` or `INNGEST_EVENT_KEY` is set, else `embedded` (refused on Vercel, unless set explicitly).",
    default: "from the keys",
  },
  JOB_CONCURRENCY: { group: "Background work", about: "The embedded engine: units of work running at once (1–1000)." },
  JOB_IDLE_POLL_MS: {
    group: "Background work",
    about: "The embedded engine: with nothing due, how long before it asks the database again for work committed by other processes (or left by a crash).",
    default: "`2000` on a Postgres server, `60000` on PGlite",
  },
  INNGEST_EVENT_KEY: {
    group: "Background work",
    about: "Inngest: the event key (set by the Vercel integration; the Inngest SDK reads it too). Without it no work (and no sweep) could be announced.",
    production: "**required** when jobs run on Inngest (and on Vercel, unless `JOB_RUNNER` says otherwise)",
  },
  INNGEST_SIGNING_KEY: {
    group: "Background work",
    about: "Inngest: the signing key that authenticates Inngest's calls to `/api/inngest`.",
    production: "**required** when jobs run on Inngest (and on Vercel, unless `JOB_RUNNER` says otherwise)",
  },
  INNGEST_DEV: {
    group: "Background work",
    about: "`1`: serve `/api/inngest` to a local Inngest dev server without keys. Development only.",
    production: "refused: the server does not start with it (it would accept unsigned calls)",
  },
  SLACK_API_URL: { group: "Notification channels", about: "Where the Slack client of notification channels sends its Web API calls; set only to point it at another server (a local fake in tests)." },
  NODE_ENV: { group: "Runtime", about: "`production` under `npm start` (and on Vercel): auth cookies are then `Secure` (unless `AUTH_URL` is plain `http://`), and the start-up checks apply." },
} satisfies { [K in keyof typeof envSchema.shape]: EnvDoc };

/** Variables read outside the schema above: by Next.js, the platform, the tests and the benchmarks. */
export const OTHER_ENV_DOCS: Record<string, EnvDoc & { default: string }> = {
  PORT: { group: "Runtime", about: "Port for `npm run dev` and `npm start` (read by Next.js).", default: "`3000`" },
  VERCEL: { group: "Runtime", about: "Set by Vercel: the embedded database is refused, the embedded engine does not start unless `JOB_RUNNER=embedded`, and a start-up problem answers 503 instead of exiting.", default: "unset" },
  TEST_DATABASE_URL: { group: "Tests and benchmarks", about: "Tests only: a Postgres server to run the database tests against as well.", default: "unset" },
  TEST_POOLED_DATABASE_URL: { group: "Tests and benchmarks", about: "Tests only (with `TEST_DATABASE_URL`): a PgBouncer in transaction mode in front of that server; the database tests run a third time through it with the Neon driver.", default: "unset" },
  KEEP_TEST_DATABASE: { group: "Tests and benchmarks", about: "Tests only: keep the per-run test database instead of dropping it.", default: "unset" },
  INSTANCES_PORT: { group: "Tests and benchmarks", about: "`npm run test:instances` only: the first of the three instances' ports.", default: "free ports" },
  HOLDS_SEED: { group: "Tests and benchmarks", about: "Tests only: the seed of the randomized concurrent holds run (printed by each run).", default: "random" },
  LEASES_SEED: { group: "Tests and benchmarks", about: "Tests only: the seed of the randomized leases run (printed by each run).", default: "random" },
  CLAIMS_SEED: { group: "Tests and benchmarks", about: "Tests only: the seed of the randomized message-claims run (printed by each run).", default: "random" },
  BOUND_HOLDS_SEED: { group: "Tests and benchmarks", about: "Tests only: the seed of the randomized run of holds bound to approvals (printed by each run).", default: "random" },
  E2E_PORT: { group: "Tests and benchmarks", about: "Playwright: the first port of the e2e servers (the config uses it and the 62 ports above it).", default: "`3217`" },
  CHROMIUM_PATH: { group: "Tests and benchmarks", about: "Playwright: the Chromium binary (Debian's, never a downloaded browser).", default: "`/usr/bin/chromium`" },
  BENCH_SECONDS: { group: "Tests and benchmarks", about: "Benchmarks only: duration per row.", default: "`10`" },
  BENCH_AGENTS: { group: "Tests and benchmarks", about: "Benchmarks only: concurrent agents.", default: "`50`" },
  BENCH_SKIP_BUILD: { group: "Tests and benchmarks", about: "Benchmarks only: reuse an existing `.next` build.", default: "unset" },
  BENCH_POSTGRES_URL: { group: "Tests and benchmarks", about: "Benchmarks only: the Postgres server `--db postgres` creates its database on.", default: "local server" },
  BENCH_WARMUP_SECONDS: { group: "Tests and benchmarks", about: "`bench:holds`: warm-up per server before the measured rows.", default: "`10`" },
  BENCH_SETTLE_SECONDS: { group: "Tests and benchmarks", about: "`bench:holds`: the first seconds of each row that are not counted.", default: "`1`" },
  BENCH_HOSTILE_ONLY: { group: "Tests and benchmarks", about: "`bench:mail`: `1` runs only the hostile corpus.", default: "unset" },
  BENCH_INNGEST_MS: { group: "Tests and benchmarks", about: "`bench:holds -- --slow-inngest`: what the stand-in Inngest event API takes per send (`0`: answers at once).", default: "`2000`" },
  BENCH_SERVER_NODE_ARGS: { group: "Tests and benchmarks", about: "Benchmarks: extra Node.js arguments for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).", default: "unset" },
};

export type Env = z.infer<typeof envSchema>;


let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  cached = parseEnvironment(envSchema);
  return cached;
}

/** Tests that change process.env between databases call this. */
export function resetEnvCache(): void {
  cached = undefined;
}
