import { z } from "zod";
import { isoTime } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import { isTimeZone } from "../../platform/time/zoned";

export { isoTime };

export const createCalendarInput = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  description: z.string().trim().max(500).nullish(),
  timezone: z
    .string()
    .refine(isTimeZone, "an IANA time zone such as Europe/Berlin")
    .default("UTC"),
});


const MAX_RANGE_MS = 62 * 24 * 3600 * 1000;

export const timeRangeQuery = z
  .object({ from: isoTime, to: isoTime })
  .refine((r) => Date.parse(r.to) > Date.parse(r.from), { message: "to must be after from", path: ["to"] })
  .refine((r) => Date.parse(r.to) - Date.parse(r.from) <= MAX_RANGE_MS, { message: "the range may span at most 62 days", path: ["to"] });

export const listEventsQuery = paginationQuery.extend({
  from: isoTime.optional(),
  to: isoTime.optional(),
  status: z.enum(["confirmed", "cancelled"]).optional(),
  attention: z
    .enum(["true"])
    .optional()
    .describe("only committed events needing attention: a person moved, cancelled or declined them, or booked over them, in the linked Google or Outlook calendar"),
});

export const calendarSchema = z
  .object({
    id: z.string().describe("cal_..."),
    object: z.literal("calendar"),
    name: z.string(),
    description: z.string().nullable(),
    timezone: z.string(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Calendar" });

const conflictSchema = z.object({
  kind: z.enum(["event", "external_busy"]).describe("another committed event, or busy time from a linked calendar"),
  id: z.string().optional().describe("the committed event (kind event)"),
  provider: z.string().optional(),
  provider_event_id: z.string().optional().describe("the provider's event (kind external_busy)"),
  link_id: z.string().optional(),
  calendar_id: z.string(),
  start_time: z.iso.datetime(),
  end_time: z.iso.datetime(),
});

export const reconciliationSchema = z
  .object({
    state: z.enum(["moved_externally", "cancelled_externally", "conflicted", "in_sync"]),
    provider: z.enum(["google", "microsoft"]),
    link_id: z.string(),
    provider_event_id: z.string(),
    changed: z.array(z.string()).describe("what the last recorded change changed: start, end, status, conflicts"),
    agentdraft: z.object({ start_time: z.iso.datetime(), end_time: z.iso.datetime(), status: z.enum(["confirmed", "cancelled"]) }),
    provider_version: z.object({
      status: z.enum(["confirmed", "cancelled", "declined"]),
      start_time: z.iso.datetime().nullable(),
      end_time: z.iso.datetime().nullable(),
      updated_at: z.iso.datetime().nullable().describe("when the provider says it last changed"),
      changed_by: z.string().nullable().describe("the organizer or creator the provider names"),
    }),
    conflicts: z.array(conflictSchema).describe("what overlaps the provider's time now, on the linked calendars"),
    detected_at: z.iso.datetime(),
  })
  .meta({ id: "EventReconciliation" });

export const calendarEventSchema = z
  .object({
    id: z.string().describe("evt_..."),
    object: z.literal("event"),
    calendar_id: z.string(),
    hold_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    start_time: z.iso.datetime(),
    end_time: z.iso.datetime(),
    status: z.enum(["confirmed", "cancelled"]),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    cancelled_at: z.iso.datetime().nullable(),
    reconciliation: reconciliationSchema.nullable().optional().describe("in listings: what a person changed in the linked Google or Outlook calendar since the commit (null: nothing)"),
  })
  .meta({ id: "CalendarEvent" });

export const busySlotSchema = z.object({
  start_time: z.iso.datetime(),
  end_time: z.iso.datetime(),
  kind: z.enum(["event", "hold", "external_busy"]).describe("a committed event, a live (tentative) hold, or busy time imported from the linked Google or Outlook calendar"),
  id: z.string(),
  priority: z.number().int().nullable().describe("a hold's priority: a higher one may preempt it"),
  expires_at: z.iso.datetime().nullable(),
});

export const availabilitySchema = z
  .object({
    object: z.literal("availability"),
    calendar_id: z.string(),
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    busy: z.array(busySlotSchema),
    free: z.array(z.object({ start_time: z.iso.datetime(), end_time: z.iso.datetime() })),
  })
  .meta({ id: "Availability" });
