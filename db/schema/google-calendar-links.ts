import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { calendars } from "./calendars";
import { googleConnections } from "./google-connections";

export const GOOGLE_SYNC_STATUSES = ["pending", "ok", "failed"] as const;
export type GoogleSyncStatus = (typeof GOOGLE_SYNC_STATUSES)[number];

/**
 * An AgentDraft calendar linked to a Google calendar: busy time is imported from it (full sync,
 * then incremental with `sync_token`), committed events are exported to it. A push channel
 * (events.watch) marks the link due at once when Google says something changed;
 * `next_sync_at` is the periodic resync either way. A sync claims the link with a lease.
 */
export const googleCalendarLinks = pgTable(
  "google_calendar_links",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    calendarId: text("calendar_id")
      .notNull()
      .references(() => calendars.id, { onDelete: "cascade" }),
    connectionId: text("connection_id")
      .notNull()
      .references(() => googleConnections.id, { onDelete: "cascade" }),
    googleCalendarId: text("google_calendar_id").notNull(),
    googleCalendarName: text("google_calendar_name"),
    /** Null: the next sync is a full sync. */
    syncToken: text("sync_token"),
    channelId: text("channel_id"),
    channelResourceId: text("channel_resource_id"),
    /** sha256 of the channel token Google echoes on each notification (compared in constant time). */
    channelTokenHash: text("channel_token_hash"),
    channelExpiresAt: timestamp("channel_expires_at", { withTimezone: true, mode: "date" }),
    syncStatus: text("sync_status", { enum: GOOGLE_SYNC_STATUSES }).notNull().default("pending"),
    lastSyncError: text("last_sync_error"),
    lastSyncedAt: timestamp("last_synced_at", { withTimezone: true, mode: "date" }),
    syncFailures: integer("sync_failures").notNull().default(0),
    nextSyncAt: timestamp("next_sync_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
    leasedUntil: timestamp("leased_until", { withTimezone: true, mode: "date" }),
    /**
     * When the drift check (issue #32) is due: set by a full resync, a recovery after failures,
     * and, while the link has committed events ahead, a day after the last check; null: none due.
     */
    driftCheckAt: timestamp("drift_check_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    uniqueIndex("google_calendar_links_calendar_key").on(t.calendarId),
    uniqueIndex("google_calendar_links_google_calendar_key").on(t.workspaceId, t.googleCalendarId),
    uniqueIndex("google_calendar_links_channel_key").on(t.channelId),
    index("google_calendar_links_due_idx").on(t.nextSyncAt),
    index("google_calendar_links_connection_idx").on(t.connectionId),
    index("google_calendar_links_drift_idx").on(t.driftCheckAt).where(sql`${t.driftCheckAt} is not null`),
    check("google_calendar_links_sync_status_check", sql`${t.syncStatus} in ('pending', 'ok', 'failed')`),
  ],
);

export type GoogleCalendarLinkRow = typeof googleCalendarLinks.$inferSelect;
