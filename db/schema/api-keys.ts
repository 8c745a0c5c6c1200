import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { agents } from "./agents";

export const API_KEY_SCOPES = ["mail", "calendar", "approvals", "audit", "webhooks", "handoffs", "leases"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Only the SHA-256 of a key and its display prefix are stored; the key itself is shown once. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "cascade" }),
    name: text("name"),
    mode: text("mode", { enum: ["live", "test"] }).notNull(),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    /** null: every scope. */
    scopes: text("scopes").array(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /** Set for a grant to an OAuth client (db/schema/oauth.ts): the key acts through that client's tokens only. */
    oauthClientId: text("oauth_client_id"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_key").on(t.hash),
    index("api_keys_workspace_idx").on(t.workspaceId),
    check("api_keys_mode_check", sql`${t.mode} in ('live', 'test')`),
  ],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
