import { z } from "zod";
import { canonicalJson } from "../../platform/crypto/canonical-json";
import { auditEntrySchema } from "./schemas";
import { idField } from "../../platform/api/id-field";

/** Limits of an agent note (SPEC §16), checked before anything is written. */
export const AGENT_NOTE_LIMITS = {
  maxSummaryChars: 1000,
  /** Each of trigger, context and the outside call, as canonical JSON. */
  maxPartBytes: 16 * 1024,
  /** The whole note as stored in the entry's summary. */
  maxNoteBytes: 48 * 1024,
  maxJsonDepth: 12,
} as const;

/** Action names the product itself writes under agent.*: a note cannot pose as one. */
export const RESERVED_AGENT_ACTIONS = new Set(["agent.created", "agent.updated", "agent.deleted", "agent.renamed", "agent.disabled", "agent.enabled"]);

function depth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v as object)) stack.push([child, d + 1]);
  }
  return max;
}

const part = (what: string) =>
  z
    .unknown()
    .refine((v) => depth(v) <= AGENT_NOTE_LIMITS.maxJsonDepth, `${what} may nest at most ${AGENT_NOTE_LIMITS.maxJsonDepth} levels`)
    .refine((v) => v === undefined || Buffer.byteLength(canonicalJson(v)) <= AGENT_NOTE_LIMITS.maxPartBytes, `${what} may be at most ${AGENT_NOTE_LIMITS.maxPartBytes} bytes of JSON`);

const short = z.string().min(1).max(100);

export const agentNoteInput = z
  .object({
    action: z
      .string()
      .regex(/^agent\.[a-z][a-z0-9_]{0,39}(\.[a-z][a-z0-9_]{0,39})?$/, "agent.<verb> in lower case, such as agent.booked_meeting")
      .refine((a) => !RESERVED_AGENT_ACTIONS.has(a), "this action name is written by AgentDraft itself; choose another verb")
      .describe("agent.<verb>: what the agent did or decided"),
    summary: z.string().min(1).max(AGENT_NOTE_LIMITS.maxSummaryChars).describe("why, in a sentence or two, for the people reading the trail"),
    agent_id: idField("agent").optional().describe("the agent the note is about: required with a workspace-wide key; an agent-bound key notes as its agent"),
    trace_id: z.string().regex(/^[A-Za-z0-9._:\/-]{1,128}$/, "1 to 128 characters of letters, digits and . _ : / -").optional()
      .describe("the trace this belongs to (a handoff's trace_id); default: the request's x-trace-id"),
    resource: z.object({ type: z.string().regex(/^[a-z][a-z_]{0,49}$/), id: short }).optional().describe("what the note is about; default: the agent"),
    outcome: z.enum(["succeeded", "failed", "rejected"]).default("succeeded"),
    trigger: part("trigger").optional().describe("what set the agent off: an email, a handoff, a webhook (ids and the parts that mattered)"),
    context: part("context").optional().describe("what the agent understood from it: the parsed context it acted on"),
    outside_call: z
      .object({
        service: short.describe("who was called, such as stripe or google-calendar"),
        request: part("outside_call.request").optional().describe("the exact payload sent"),
        confirmation: part("outside_call.confirmation").optional().describe("what came back: ids, status"),
      })
      .optional(),
    model: z
      .object({
        name: short,
        prompt_version: short.optional(),
        input_tokens: z.number().int().min(0).max(100_000_000).optional(),
        output_tokens: z.number().int().min(0).max(100_000_000).optional(),
      })
      .optional(),
  })
  .refine((n) => Buffer.byteLength(canonicalJson(n)) <= AGENT_NOTE_LIMITS.maxNoteBytes, `a note may be at most ${AGENT_NOTE_LIMITS.maxNoteBytes} bytes of JSON in all`);
export type AgentNoteInput = z.output<typeof agentNoteInput>;

export const agentNoteEntrySchema = auditEntrySchema
  .extend({
    seq: z.number().int().nullable().describe("null until the entry is chained (within about a second)"),
    prev_hash: z.string().nullable(),
    hash: z.string().nullable(),
  })
  .meta({ id: "AgentNoteEntry" });
