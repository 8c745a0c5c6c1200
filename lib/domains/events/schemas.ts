import { z } from "zod";
import { EVENT_TYPES, type EventType } from "../../platform/events/emit-event";

const typeList = z
  .string()
  .max(EVENT_TYPES.length * 24)
  .transform((v, ctx) => {
    const types = v.split(",").map((t) => t.trim()).filter(Boolean);
    const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length) ctx.addIssue({ code: "custom", message: `unknown event type ${unknown[0]}; one of ${EVENT_TYPES.join(", ")}` });
    return types as EventType[];
  })
  .describe(`comma-separated event types to receive (default: every type the key's scopes allow): ${EVENT_TYPES.join(", ")}`);

export const streamEventsQuery = z.object({
  types: typeList.optional(),
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("start with events created at or after this time (while they are kept: 30 days), when there is no Last-Event-ID"),
  after: z
    .string()
    .max(41)
    .optional()
    .describe("resume after this event id, as the Last-Event-ID header does (which wins when both are sent)"),
});
export type StreamEventsQuery = z.output<typeof streamEventsQuery>;

export const streamedEventSchema = z
  .object({
    type: z.enum(EVENT_TYPES),
    id: z.string().describe("whm_...: the event's id, the same as its webhook's webhook-id"),
    created_at: z.iso.datetime(),
    data: z.record(z.string(), z.unknown()),
    trace_id: z.string().optional(),
  })
  .meta({
    id: "StreamedEvent",
    description:
      "The `data` of one Server-Sent Event; its SSE `event` field is the type and its `id` field the stream position to resume after (Last-Event-ID).",
  });
