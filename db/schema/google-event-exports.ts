import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { calendarEvents } from "./calendar-events";

export const GOOGLE_EXPORT_STATUSES = ["pending", "exported", "deleted", "failed"] as const;
export type GoogleExportStatus = (typeof GOOGLE_EXPORT_STATUSES)[number];

/**
 * A committed event's copy in Google Calendar. `desired` is what Google should hold (written
 * in the same transaction as the commit or the cancel); the export job makes it so, retrying
 * with backoff. `failed`: attempts ran out; it is shown in the web app and can be retried.
 */
export const googleEventExports = pgTable(
  "google_event_exports",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn(),
    calendarEventId: text("calendar_event_id")
      .notNull()
      .references(() => calendarEvents.id, { onDelete: "cascade" }),
    calendarId: text("calendar_id").notNull(),
    holdId: text("hold_id"),
    linkId: text("link_id"),
    googleCalendarId: text("google_calendar_id").notNull(),
    /** Deterministic (from the event id), so two inserts of one event cannot both succeed. */
    googleEventId: text("google_event_id").notNull(),
    desired: text("desired", { enum: ["present", "absent"] }).notNull(),
    status: text("status", { enum: GOOGLE_EXPORT_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).defaultNow(),
    leasedUntil: timestamp("leased_until", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    uniqueIndex("google_event_exports_event_key").on(t.calendarEventId),
    index("google_event_exports_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("google_event_exports_workspace_idx").on(t.workspaceId, t.id),
    check("google_event_exports_status_check", sql`${t.status} in ('pending', 'exported', 'deleted', 'failed')`),
    check("google_event_exports_desired_check", sql`${t.desired} in ('present', 'absent')`),
  ],
);

export type GoogleEventExportRow = typeof googleEventExports.$inferSelect;
