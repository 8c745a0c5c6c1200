import { z } from "zod";
import { isoTime } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";

export { isoTime };

export const createCalendarInput = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  description: z.string().trim().max(500).nullish(),
  timezone: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat("en", { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, "an IANA time zone such as Europe/Berlin")
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
