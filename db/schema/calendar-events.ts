import { check, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { calendars } from "./calendars";
import { tstzrange } from "./ranges";

/**
 * A committed booking on one calendar. An exclusion constraint (custom migration) makes two
 * confirmed events on one calendar overlapping impossible, even if application code is wrong.
 */
export const calendarEvents = pgTable(
  "calendar_events",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    calendarId: text("calendar_id")
      .notNull()
      .references(() => calendars.id, { onDelete: "cascade" }),
    holdId: text("hold_id"),
    agentId: text("agent_id"),
    startTime: timestamp("start_time", { withTimezone: true, mode: "date" }).notNull(),
    endTime: timestamp("end_time", { withTimezone: true, mode: "date" }).notNull(),
    /** Half-open [start, end): back-to-back events do not overlap. */
    span: tstzrange("span")
      .notNull()
      .generatedAlwaysAs(sql`tstzrange(start_time, end_time, '[)')`),
    status: text("status", { enum: ["confirmed", "cancelled"] }).notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    cancelledAt: timestamp("cancelled_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("calendar_events_calendar_idx").on(t.calendarId, t.startTime),
    index("calendar_events_hold_idx").on(t.holdId),
    check("calendar_events_time_order", sql`${t.endTime} > ${t.startTime}`),
    check("calendar_events_status_check", sql`${t.status} in ('confirmed', 'cancelled')`),
  ],
);

export type CalendarEventRow = typeof calendarEvents.$inferSelect;
