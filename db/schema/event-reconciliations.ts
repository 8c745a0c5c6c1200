import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaceIdColumn } from "./columns";
import { calendarEvents } from "./calendar-events";

export const RECONCILIATION_STATES = ["moved_externally", "cancelled_externally", "conflicted", "in_sync"] as const;
export type ReconciliationState = (typeof RECONCILIATION_STATES)[number];

/** What the provider says of an exported event: there as AgentDraft made it or moved (confirmed), deleted/cancelled, or declined by all its attendees. */
export type ProviderEventStatus = "confirmed" | "cancelled" | "declined";

/** Something that now overlaps the event: another committed event, or busy time from a linked calendar. */
export type ReconciliationConflict =
  | { kind: "event"; id: string; calendar_id: string; start_time: string; end_time: string }
  | { kind: "external_busy"; provider: string; provider_event_id: string; calendar_id: string; link_id: string; start_time: string; end_time: string };

/**
 * A committed event a person changed in Google Calendar or Outlook after AgentDraft exported it
 * (issue #32), one row an event: the provider's version beside AgentDraft's (which stays on the
 * event: nothing is moved back), what changed, and what now overlaps it. Written by the import
 * sync under the calendar's lock; a change already recorded (same provider version, same
 * conflicts) writes nothing, so each provider change is announced once. `in_sync`: the provider
 * agrees with AgentDraft again and nothing overlaps (no longer needs attention).
 */
export const eventReconciliations = pgTable(
  "event_reconciliations",
  {
    calendarEventId: text("calendar_event_id")
      .primaryKey()
      .references(() => calendarEvents.id, { onDelete: "cascade" }),
    workspaceId: workspaceIdColumn(),
    calendarId: text("calendar_id").notNull(),
    linkId: text("link_id").notNull(),
    provider: text("provider", { enum: ["google", "microsoft"] }).notNull(),
    providerEventId: text("provider_event_id").notNull(),
    state: text("state", { enum: RECONCILIATION_STATES }).notNull(),
    providerStatus: text("provider_status", { enum: ["confirmed", "cancelled", "declined"] }).notNull(),
    providerStart: timestamp("provider_start", { withTimezone: true, mode: "date" }),
    providerEnd: timestamp("provider_end", { withTimezone: true, mode: "date" }),
    /** The fields the last recorded change changed (start, end, status, conflicts). */
    changed: jsonb("changed").$type<string[]>().notNull(),
    conflicts: jsonb("conflicts").$type<ReconciliationConflict[]>().notNull(),
    /** When the provider says the event last changed (Google `updated`, Graph `lastModifiedDateTime`), and whom it names (organizer / creator). */
    providerUpdatedAt: timestamp("provider_updated_at", { withTimezone: true, mode: "date" }),
    providerChangedBy: text("provider_changed_by"),
    /** How many changes were recorded (each one announced once). */
    changes: integer("changes").notNull().default(1),
    detectedAt: timestamp("detected_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("event_reconciliations_attention_idx").on(t.workspaceId, t.calendarId).where(sql`${t.state} <> 'in_sync'`),
    check("event_reconciliations_state_check", sql`${t.state} in ('moved_externally', 'cancelled_externally', 'conflicted', 'in_sync')`),
    check("event_reconciliations_status_check", sql`${t.providerStatus} in ('confirmed', 'cancelled', 'declined')`),
  ],
);

export type EventReconciliationRow = typeof eventReconciliations.$inferSelect;
