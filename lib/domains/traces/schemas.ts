import { z } from "zod";
import { handoffEnvelopeSchema } from "../handoffs";

export const traceItemSchema = z
  .object({
    kind: z.string().describe("handoff, audit_entry, message, hold, approval…"),
    id: z.string(),
    at: z.iso.datetime(),
    agent_id: z.string().nullable(),
    title: z.string(),
    status: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).describe("the record, as its own endpoint shows it (abridged for mail)"),
  })
  .meta({ id: "TraceItem" });

export const traceSchema = z
  .object({
    object: z.literal("trace"),
    id: z.string(),
    trace_ids: z.array(z.string()).describe("every trace id and correlation id the records were gathered by"),
    correlation_ids: z.array(z.string()),
    roots: z.array(z.string()).describe("handoffs with no parent on this trace"),
    handoffs: z
      .array(handoffEnvelopeSchema.extend({ depth: z.number().int(), children: z.array(z.string()) }))
      .describe("the tree by parent, depth first: each handoff before its children"),
    timeline: z.array(traceItemSchema).describe("every record in time order"),
    counts: z.record(z.string(), z.number().int()),
    dead_handoffs: z.array(z.string()),
    truncated: z.boolean().describe("true when a kind had more than 500 records (the oldest 500 are shown)"),
  })
  .meta({ id: "Trace" });

