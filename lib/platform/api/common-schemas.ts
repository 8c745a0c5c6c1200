import { z } from "zod";

/** A page of results, newest first. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean() });

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe("stable, machine-readable error code"),
    request_id: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .loose()
  .meta({ id: "Problem", description: "RFC 9457 problem details" });

export const idPath = z.object({ id: z.string() });

/** A point in time as the API takes it: ISO 8601 with a zone. */
export const isoTime = z.iso.datetime({ offset: true, message: "an ISO 8601 time with a zone, e.g. 2030-01-01T15:00:00Z" });
