import { check, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

export const TAINT_CHANNELS = ["api", "mcp", "events", "webhook", "handoff"] as const;
export type TaintChannel = (typeof TAINT_CHANNELS)[number];

/**
 * What an agent has read that it must not act on without a person (SPEC §13): one row per
 * reader and untrusted message (a body from an unauthenticated sender, or one carrying
 * injection signals), recorded by the server when it hands that body out. The reader is an
 * agent (`agent_...`), or the key (`key_...`) of a workspace-wide key. The reader is tainted
 * while a row is neither expired (the workspace's taint window after the last read) nor cleared
 * by a person.
 */
export const agentTaints = pgTable(
  "agent_taints",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    reader: text("reader").notNull(),
    /** The message read; kept when the message is deleted (the taint outlives it). */
    messageId: text("message_id").notNull(),
    fromEmail: text("from_email").notNull(),
    reasons: text("reasons").array().notNull(),
    /** How the body reached the reader last (handoff: from a tainted agent, which passes its taint on). */
    channel: text("channel", { enum: TAINT_CHANNELS }).notNull(),
    firstReadAt: timestamp("first_read_at", { withTimezone: true, mode: "date" }).notNull().default(sql`clock_timestamp()`),
    lastReadAt: timestamp("last_read_at", { withTimezone: true, mode: "date" }).notNull().default(sql`clock_timestamp()`),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    clearedAt: timestamp("cleared_at", { withTimezone: true, mode: "date" }),
    /** The member who cleared it. */
    clearedBy: text("cleared_by"),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.reader, t.messageId] }),
    index("agent_taints_live_idx").on(t.workspaceId, t.reader, t.expiresAt).where(sql`${t.clearedAt} is null`),
    check("agent_taints_channel_check", sql`${t.channel} in ('api', 'mcp', 'events', 'webhook', 'handoff')`),
  ],
);

export type AgentTaintRow = typeof agentTaints.$inferSelect;
