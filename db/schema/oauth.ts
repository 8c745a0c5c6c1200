import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { agents } from "./agents";
import { apiKeys } from "./api-keys";

/**
 * An OAuth client an MCP client registered for itself (RFC 7591 Dynamic Client Registration) or
 * named by the URL of its Client ID Metadata Document. Deployment-wide: registration is
 * unauthenticated, and a client can do nothing until a person consents.
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    id: idColumn(),
    /** What the client sends as `client_id`: ours for a registered client, the document's URL otherwise. */
    clientId: text("client_id").notNull(),
    registration: text("registration", { enum: ["dynamic", "metadata_document"] }).notNull(),
    name: text("name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    /** The origins of its redirect URIs: a browser-based client calls /api/mcp from one of them. */
    origins: text("origins").array().notNull(),
    metadata: jsonb("metadata").notNull(),
    createdAt: createdAt(),
    /** When a metadata document was last fetched (it is fetched again when older than a day). */
    fetchedAt: timestamp("fetched_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("oauth_clients_client_id_key").on(t.clientId),
    check("oauth_clients_registration_check", sql`${t.registration} in ('dynamic', 'metadata_document')`),
  ],
);

/**
 * An authorization code, stored by hash, single use and short-lived: what a person consented to
 * (the agent, the scopes) and the PKCE challenge, redirect URI and resource it is bound to.
 * `api_key_id` is set when it is exchanged, so a replayed code revokes what it gave.
 */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    hash: text("hash").primaryKey(),
    clientId: text("client_id").notNull().references(() => oauthClients.id, { onDelete: "cascade" }),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    scopes: text("scopes").array().notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
  },
  (t) => [index("oauth_codes_expires_idx").on(t.expiresAt)],
);

/**
 * Access and refresh tokens, by hash. A grant is an agent-bound API key row (`api_keys`,
 * `oauth_client_id` set) whose own secret is never shown: its tokens act as that key, so its
 * scopes, agent, rate limits, taint and audit attribution bind them, and revoking it ends them.
 * A refresh token is used once (`used_at`); using one twice revokes the grant.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    hash: text("hash").primaryKey(),
    apiKeyId: text("api_key_id").notNull().references(() => apiKeys.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("oauth_tokens_key_idx").on(t.apiKeyId),
    check("oauth_tokens_kind_check", sql`${t.kind} in ('access', 'refresh')`),
  ],
);

export type OAuthClientRow = typeof oauthClients.$inferSelect;
export type OAuthCodeRow = typeof oauthCodes.$inferSelect;
