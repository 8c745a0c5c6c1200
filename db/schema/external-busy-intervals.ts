import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, workspaceIdColumn } from "./columns";
import { calendars } from "./calendars";
import { googleCalendarLinks } from "./google-calendar-links";
import { tstzrange } from "./ranges";

/**
 * Busy time imported from a linked external calendar (Google or Microsoft: `source`): only when,
 * never what (no titles). `google_event_id` is the provider's event (or occurrence) id. Written
 * under the calendar's row lock, like holds, so the conflict check sees all of a sync or none.
 */
export const externalBusyIntervals = pgTable(
  "external_busy_intervals",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn(),
    calendarId: text("calendar_id")
      .notNull()
      .references(() => calendars.id, { onDelete: "cascade" }),
    linkId: text("link_id")
      .notNull()
      .references(() => googleCalendarLinks.id, { onDelete: "cascade" }),
    googleEventId: text("google_event_id").notNull(),
    /** The provider it came from, as hold_conflict reports it (the link's connection's provider). */
    source: text("source", { enum: ["google", "microsoft"] }).notNull().default("google"),
    startTime: timestamp("start_time", { withTimezone: true, mode: "date" }).notNull(),
    endTime: timestamp("end_time", { withTimezone: true, mode: "date" }).notNull(),
    /** Half-open [start, end), like events and holds. */
    span: tstzrange("span")
      .notNull()
      .generatedAlwaysAs(sql`tstzrange(start_time, end_time, '[)')`),
    /** When this span became busy here (database clock). */
    importedAt: timestamp("imported_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    uniqueIndex("external_busy_link_event_key").on(t.linkId, t.googleEventId),
    index("external_busy_calendar_span_idx").using("gist", t.calendarId, t.span),
    check("external_busy_time_order", sql`${t.endTime} > ${t.startTime}`),
  ],
);

export type ExternalBusyIntervalRow = typeof externalBusyIntervals.$inferSelect;
