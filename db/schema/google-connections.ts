import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { members } from "./members";

export const GOOGLE_CONNECTION_STATUSES = ["active", "error", "revoked"] as const;
export type GoogleConnectionStatus = (typeof GOOGLE_CONNECTION_STATUSES)[number];

/**
 * A Google account connected to a workspace by a member (OAuth, offline access). The refresh
 * token is stored sealed (AES-256-GCM, lib/crypto/secret-box.ts) and dropped on disconnect.
 * `error`: Google refused the refresh token (revoked at Google's end): reconnect.
 */
export const googleConnections = pgTable(
  "google_connections",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    memberId: text("member_id").references(() => members.id, { onDelete: "set null" }),
    /** The Google account (its primary calendar's id, an email address). */
    googleEmail: text("google_email").notNull(),
    scopes: text("scopes").array().notNull(),
    refreshTokenSealed: text("refresh_token_sealed"),
    status: text("status", { enum: GOOGLE_CONNECTION_STATUSES }).notNull().default("active"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("google_connections_workspace_idx").on(t.workspaceId, t.id),
    uniqueIndex("google_connections_live_account_key").on(t.workspaceId, sql`lower(${t.googleEmail})`).where(sql`${t.status} <> 'revoked'`),
    check("google_connections_status_check", sql`${t.status} in ('active', 'error', 'revoked')`),
    check("google_connections_token_check", sql`${t.status} = 'revoked' or ${t.refreshTokenSealed} is not null`),
  ],
);

export type GoogleConnectionRow = typeof googleConnections.$inferSelect;
