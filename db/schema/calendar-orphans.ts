import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";

export const ORPHAN_ACTIONS = ["reported", "deleted"] as const;
export type OrphanAction = (typeof ORPHAN_ACTIONS)[number];

/**
 * A provider event tagged as AgentDraft's that AgentDraft does not stand behind (issue #32,
 * drift repair): its tag names no event this link exported there, or an event that was
 * cancelled or released. One row per (link, provider event): a report is made once.
 * `deleted`: the drift check had the export remove it (provably ours, and our record says it
 * should not exist); `reported`: left for a person, open until a member dismisses it.
 */
export const calendarOrphans = pgTable(
  "calendar_orphans",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn(),
    calendarId: text("calendar_id").notNull(),
    linkId: text("link_id").notNull(),
    provider: text("provider", { enum: ["google", "microsoft"] }).notNull(),
    providerEventId: text("provider_event_id").notNull(),
    /** The AgentDraft event id the provider event is tagged with. */
    taggedEventId: text("tagged_event_id"),
    providerStart: timestamp("provider_start", { withTimezone: true, mode: "date" }),
    providerEnd: timestamp("provider_end", { withTimezone: true, mode: "date" }),
    action: text("action", { enum: ORPHAN_ACTIONS }).notNull(),
    reason: text("reason").notNull(),
    createdAt: createdAt(),
    /**
     * When the orphan stopped needing a person: at once for `deleted` (AgentDraft removes it),
     * else when a member dismissed it. Null: open, listed for people and agents.
     */
    resolvedAt: timestamp("resolved_at", { withTimezone: true, mode: "date" }),
    /** The member who dismissed it (null: open, or AgentDraft deleted it). */
    resolvedBy: text("resolved_by"),
    /** What the member said when dismissing it (at most 500 characters). */
    resolutionNote: text("resolution_note"),
  },
  (t) => [
    uniqueIndex("calendar_orphans_link_event_key").on(t.linkId, t.providerEventId),
    index("calendar_orphans_workspace_idx").on(t.workspaceId, t.id),
    index("calendar_orphans_open_idx").on(t.workspaceId, t.calendarId, t.id).where(sql`${t.resolvedAt} is null`),
    check("calendar_orphans_action_check", sql`${t.action} in ('reported', 'deleted')`),
  ],
);

export type CalendarOrphanRow = typeof calendarOrphans.$inferSelect;
