import { check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

export const HOLD_STATUSES = ["held", "committed", "released", "expired", "preempted"] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/**
 * A tentative claim on one or more calendars for [start_time, end_time). A hold is live while
 * status = 'held' and expires_at is in the future — checked against the database clock in
 * every query, so it is dead the instant its TTL passes whether or not the expiry job ran.
 */
export const holds = pgTable(
  "holds",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    /** Sorted; the order locks are taken in. */
    calendarIds: text("calendar_ids").array().notNull(),
    agentId: text("agent_id"),
    apiKeyId: text("api_key_id"),
    startTime: timestamp("start_time", { withTimezone: true, mode: "date" }).notNull(),
    endTime: timestamp("end_time", { withTimezone: true, mode: "date" }).notNull(),
    priority: integer("priority").notNull(),
    ttlSeconds: integer("ttl_seconds").notNull(),
    status: text("status", { enum: HOLD_STATUSES }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
    preemptedBy: text("preempted_by"),
    preemptedByPriority: integer("preempted_by_priority"),
    /** A pending approval this hold waits for (SPEC §12): its expires_at follows the approval's. */
    approvalId: text("approval_id"),
    /** The committed event this hold re-books (issue #32): committing it replaces that event and moves its provider copy, same provider event id. */
    rebooksEventId: text("rebooks_event_id"),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("holds_workspace_idx").on(t.workspaceId, t.id),
    index("holds_calendar_ids_idx").using("gin", t.calendarIds),
    index("holds_approval_idx").on(t.approvalId).where(sql`${t.approvalId} is not null`),
    index("holds_rebooks_event_idx").on(t.rebooksEventId).where(sql`${t.rebooksEventId} is not null`),
    index("holds_held_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'held'`),
    check("holds_time_order", sql`${t.endTime} > ${t.startTime}`),
    check("holds_priority_range", sql`${t.priority} between 0 and 100`),
    check("holds_status_check", sql`${t.status} in ('held', 'committed', 'released', 'expired', 'preempted')`),
  ],
);

export type HoldRow = typeof holds.$inferSelect;
