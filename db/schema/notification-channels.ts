import { sql } from "drizzle-orm";
import { boolean, check, index, numeric, pgTable, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

export const NOTIFICATION_CHANNEL_KINDS = ["slack", "teams", "discord"] as const;
export type NotificationChannelKind = (typeof NOTIFICATION_CHANNEL_KINDS)[number];

/** What a channel can be told (SPEC §15). */
export const NOTIFICATION_TYPES = [
  "approval.requested",
  "approval.escalated",
  "approval.resolved",
  "webhook_endpoint.disabled",
  "calendar.sync_failed",
  "event.moved_externally",
  "event.cancelled_externally",
  "event.conflicted",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * Where a workspace's people are told about approvals and failures: a Slack channel (bot token),
 * a Microsoft Teams or a Discord incoming webhook. The secret (the bot token or the webhook URL,
 * which carries its own token) is sealed (lib/platform/crypto/secret-box.ts) and never shown again.
 * Routing: the notification types, and for approvals an action-class list (null: all) and a
 * minimum amount. Quiet hours (minutes after local midnight in `time_zone`) delay new messages.
 * `failing_since`: the first failed attempt after a success; `failed_at`: a message gave up
 * (audited once as notification_channel.failed); a success clears both.
 */
export const notificationChannels = pgTable(
  "notification_channels",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: NOTIFICATION_CHANNEL_KINDS }).notNull(),
    name: text("name").notNull(),
    secretSealed: text("secret_sealed").notNull(),
    /** Slack: the channel id (C…) messages are posted to. */
    slackChannelId: text("slack_channel_id"),
    /** Slack: also message each approver whose Slack account has their email. */
    dmApprovers: boolean("dm_approvers").notNull().default(false),
    notificationTypes: text("notification_types").array().notNull(),
    actionClasses: text("action_classes").array(),
    minAmount: numeric("min_amount", { precision: 20, scale: 4 }),
    quietStartMinute: smallint("quiet_start_minute"),
    quietEndMinute: smallint("quiet_end_minute"),
    timeZone: text("time_zone").notNull().default("UTC"),
    includeEvidence: boolean("include_evidence").notNull().default(false),
    enabled: boolean("enabled").notNull().default(true),
    lastError: text("last_error"),
    lastErrorAt: timestamp("last_error_at", { withTimezone: true, mode: "date" }),
    failingSince: timestamp("failing_since", { withTimezone: true, mode: "date" }),
    failedAt: timestamp("failed_at", { withTimezone: true, mode: "date" }),
    lastSuccessAt: timestamp("last_success_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    index("notification_channels_workspace_idx").on(t.workspaceId, t.id),
    check("notification_channels_kind_check", sql`${t.kind} in ('slack', 'teams', 'discord')`),
    check("notification_channels_slack_check", sql`${t.kind} <> 'slack' or ${t.slackChannelId} is not null`),
    check("notification_channels_quiet_check", sql`(${t.quietStartMinute} is null) = (${t.quietEndMinute} is null) and coalesce(${t.quietStartMinute}, 0) between 0 and 1439 and coalesce(${t.quietEndMinute}, 0) between 0 and 1439`),
  ],
);

export type NotificationChannelRow = typeof notificationChannels.$inferSelect;
