import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { members } from "./members";

export const GOOGLE_CONNECTION_STATUSES = ["active", "error", "revoked"] as const;
export type GoogleConnectionStatus = (typeof GOOGLE_CONNECTION_STATUSES)[number];
/** The calendar providers a connection can be to (lib/domains/calendar-sync/provider.ts). */
export const CALENDAR_PROVIDERS = ["google", "microsoft"] as const;
export type CalendarProviderId = (typeof CALENDAR_PROVIDERS)[number];

/**
 * A calendar account (Google, or Microsoft 365 / Outlook: `provider`) connected to a workspace
 * by a member (OAuth, offline access). The table keeps its first name; every provider shares it,
 * its links and its exports (lib/domains/calendar-sync). The refresh
 * token is stored sealed (AES-256-GCM, lib/platform/crypto/secret-box.ts) and dropped on disconnect.
 * `error`: Google refused the refresh token (revoked at Google's end): reconnect.
 */
export const googleConnections = pgTable(
  "google_connections",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    memberId: text("member_id").references(() => members.id, { onDelete: "set null" }),
    provider: text("provider", { enum: CALENDAR_PROVIDERS }).notNull().default("google"),
    /** The account: Google's primary calendar id, or Microsoft's mail / user principal name (an email address). */
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
    uniqueIndex("google_connections_live_account_key").on(t.workspaceId, t.provider, sql`lower(${t.googleEmail})`).where(sql`${t.status} <> 'revoked'`),
    check("google_connections_status_check", sql`${t.status} in ('active', 'error', 'revoked')`),
    check("google_connections_provider_check", sql`${t.provider} in ('google', 'microsoft')`),
    check("google_connections_token_check", sql`${t.status} = 'revoked' or ${t.refreshTokenSealed} is not null`),
  ],
);

export type GoogleConnectionRow = typeof googleConnections.$inferSelect;
