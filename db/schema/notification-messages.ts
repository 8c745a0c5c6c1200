import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { notificationChannels } from "./notification-channels";

export const NOTIFICATION_MESSAGE_STATUSES = ["queued", "sent", "failed", "skipped"] as const;

/**
 * One message to one channel (one per recipient for Slack direct messages), written in the
 * transaction of the change it tells of. It holds a reference (`subject_id`: the approval,
 * endpoint, calendar link or export), never the content: that is read when it is delivered.
 * Unique per (channel, subject, type, recipient), so queuing twice adds nothing. `provider_ref`
 * and `provider_channel` name the message at the provider (Slack ts and channel, Discord message
 * id), so a later state of the same subject updates it in place.
 */
export const notificationMessages = pgTable(
  "notification_messages",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    channelId: text("channel_id")
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    subjectId: text("subject_id").notNull(),
    type: text("type").notNull(),
    /** "" for the channel itself; a member id for a Slack direct message. */
    recipient: text("recipient").notNull().default(""),
    status: text("status", { enum: NOTIFICATION_MESSAGE_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    /** While queued: when it is tried next (also its lease while an attempt runs). */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    providerChannel: text("provider_channel"),
    providerRef: text("provider_ref"),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    uniqueIndex("notification_messages_once_key").on(t.channelId, t.subjectId, t.type, t.recipient),
    index("notification_messages_queue_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'queued'`),
    index("notification_messages_subject_idx").on(t.workspaceId, t.subjectId),
    check("notification_messages_status_check", sql`${t.status} in ('queued', 'sent', 'failed', 'skipped')`),
  ],
);

export type NotificationMessageRow = typeof notificationMessages.$inferSelect;
