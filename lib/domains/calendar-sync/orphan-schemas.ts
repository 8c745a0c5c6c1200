import { z } from "zod";
import { paginationQuery } from "../../platform/api/pagination";
import { idField } from "../../platform/api/id-field";

export const ORPHAN_STATUSES = ["open", "resolved", "all"] as const;

export const listOrphansQuery = paginationQuery.extend({
  calendar_id: idField("calendar").optional().describe("only this calendar's orphans"),
  status: z
    .enum(ORPHAN_STATUSES)
    .default("open")
    .describe("open (default): waiting for a person; resolved: deleted by AgentDraft or dismissed by a member; all"),
});
export type ListOrphansQuery = z.output<typeof listOrphansQuery>;

/** What a member may say when dismissing an orphan. */
export const orphanNote = z.string().trim().max(500, "at most 500 characters");

export const calendarOrphanSchema = z
  .object({
    id: z.string().describe("corph_..."),
    object: z.literal("calendar_orphan"),
    calendar_id: z.string(),
    link_id: z.string(),
    provider: z.enum(["google", "microsoft"]),
    provider_event_id: z.string().describe("the event in the linked Google or Outlook calendar"),
    tagged_event_id: z.string().nullable().describe("the AgentDraft event id its tag names"),
    start_time: z.iso.datetime().nullable().describe("where it lies in the provider's calendar, when found"),
    end_time: z.iso.datetime().nullable(),
    action: z.enum(["reported", "deleted"]).describe("deleted: provably AgentDraft's removed copy, removed again by AgentDraft; reported: left for a person"),
    reason: z
      .string()
      .describe("removed_by_agentdraft, removal_failed, event_not_confirmed, duplicate_copy (a second copy of an exported event) or unknown_event (a tag naming no event exported there)"),
    found_at: z.iso.datetime(),
    status: z.enum(["open", "resolved"]),
    resolved_at: z.iso.datetime().nullable(),
    resolved_by: z.string().nullable().describe("the member who dismissed it (null: open, or deleted by AgentDraft)"),
    resolution_note: z.string().nullable(),
  })
  .meta({ id: "CalendarOrphan" });
