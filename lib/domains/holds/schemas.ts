import { z } from "zod";
import { HOLD_STATUSES } from "../../../db/schema";
import { paginationQuery } from "../../platform/api/pagination";
import { isoTime } from "../../platform/api/common-schemas";
import { canonicalJson } from "../../platform/crypto/canonical-json";
import { idField } from "../../platform/api/id-field";

const MAX_HOLD_MS = 31 * 24 * 3600 * 1000;
const MAX_METADATA_BYTES = 4096;

const metadata = z
  .record(z.string().max(100), z.unknown())
  .refine((m) => Buffer.byteLength(canonicalJson(m)) <= MAX_METADATA_BYTES, `at most ${MAX_METADATA_BYTES} bytes of JSON`)
  .default({});

const holdFields = z.object({
  start_time: isoTime,
  end_time: isoTime,
  priority: z.number().int().min(0).max(100).default(50).describe("0-100; a higher priority preempts lower live holds"),
  hold_ttl_seconds: z.number().int().positive().optional().describe("time to live; bounds are configurable (default 5 s to 1 h)"),
  metadata,
});

/** Re-booking (issue #32): the committed event a hold replaces when committed. */
const rebooksEventId = idField("calendarEvent")
  .optional()
  .describe(
    "the committed event this hold re-books, e.g. one a person moved, cancelled or booked over in the linked Google or Outlook calendar; the hold must be on that event's calendar alone. The hold may overlap that event's own time; committing the hold replaces the event, updating the same provider event instead of adding a second one. One re-booking of an event at a time: 409 conflict while another live hold re-books it, or once it is no longer committed",
  );

type Times = { start_time: string; end_time: string };
const ordered = (h: Times) => Date.parse(h.end_time) > Date.parse(h.start_time);
const bounded = (h: Times) => Date.parse(h.end_time) - Date.parse(h.start_time) <= MAX_HOLD_MS;

export const placeHoldInput = holdFields
  .extend({ rebooks_event_id: rebooksEventId })
  .refine(ordered, { message: "end_time must be after start_time", path: ["end_time"] })
  .refine(bounded, { message: "a hold may span at most 31 days", path: ["end_time"] });

export const placeMultiHoldInput = holdFields
  .extend({ calendar_ids: z.array(idField("calendar")).min(1).max(20).describe("all or nothing"), rebooks_event_id: rebooksEventId })
  .refine(ordered, { message: "end_time must be after start_time", path: ["end_time"] })
  .refine(bounded, { message: "a hold may span at most 31 days", path: ["end_time"] });

export type PlaceHoldInput = z.output<typeof placeMultiHoldInput>;

export const extendHoldInput = z.object({
  hold_ttl_seconds: z.number().int().positive().optional().describe("new time to live from now; default: the hold's own TTL"),
});

export const listHoldsQuery = paginationQuery.extend({
  calendar_id: idField("calendar").optional(),
  status: z.enum(HOLD_STATUSES).optional(),
});

export const holdSchema = z
  .object({
    id: z.string().describe("hold_..."),
    object: z.literal("hold"),
    calendar_ids: z.array(z.string()),
    agent_id: z.string().nullable(),
    start_time: z.iso.datetime(),
    end_time: z.iso.datetime(),
    priority: z.number().int(),
    status: z.enum(HOLD_STATUSES).describe("`expired` as soon as expires_at passes, even before the expiry job runs"),
    hold_ttl_seconds: z.number().int(),
    expires_at: z.iso.datetime(),
    metadata: z.record(z.string(), z.unknown()),
    preempted_by: z.object({ hold_id: z.string(), priority: z.number().int() }).nullable(),
    approval_id: z.string().nullable().describe("the pending approval this hold waits for (it lives until that approval's expiry), or the one it waited for"),
    rebooks_event_id: z.string().nullable().describe("the committed event this hold re-books (committing it replaces that event, same provider event), or null"),
    event_ids: z.array(z.string()).describe("the committed events, one per calendar"),
    created_at: z.iso.datetime(),
    ended_at: z.iso.datetime().nullable().describe("when it was committed, released, expired or preempted"),
  })
  .meta({ id: "Hold" });
