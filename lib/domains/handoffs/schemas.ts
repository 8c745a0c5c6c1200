import { z } from "zod";
import { HANDOFF_STATUSES } from "../../../db/schema";
import { paginationQuery } from "../../platform/api/pagination";
import { canonicalJson } from "../../platform/crypto/canonical-json";
import { idField } from "../../platform/api/id-field";

/** Limits of what a handoff carries (SPEC §16), checked before any work starts. */
export const HANDOFF_LIMITS = {
  maxBodyBytes: 64 * 1024,
  maxResultBytes: 64 * 1024,
  maxJsonDepth: 16,
  maxErrorChars: 2000,
  maxErrorDetailsBytes: 8 * 1024,
  maxAttempts: 100,
  defaultMaxAttempts: 3,
  maxExpiresInSeconds: 30 * 24 * 3600,
  minClaimTtlSeconds: 1,
  maxClaimTtlSeconds: 3600,
  defaultClaimTtlSeconds: 300,
} as const;

/** Nesting depth of a JSON value (a scalar is 0), iteratively. */
export function jsonDepth(value: unknown): number {
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

/** A JSON value within a byte size (canonical JSON) and the handoff nesting limit. */
export const boundedJson = (maxBytes: number, what: string) =>
  z
    .unknown()
    .refine((v) => v !== undefined, `${what} is required`)
    .refine((v) => jsonDepth(v) <= HANDOFF_LIMITS.maxJsonDepth, `${what} may nest at most ${HANDOFF_LIMITS.maxJsonDepth} levels`)
    .refine((v) => v === undefined || Buffer.byteLength(canonicalJson(v)) <= maxBytes, `${what} may be at most ${maxBytes} bytes of JSON`);

const handoffType = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:/-]{0,99}$/, "1 to 100 characters: lower-case letters, digits and . _ : / -, such as research.summarize")
  .describe("what kind of work this is; workers ask for the types they do");
const agentId = idField("agent");
const claimId = idField("handoffClaim");

export const createHandoffInput = z.object({
  to_agent_id: agentId.describe("the agent that should do the work"),
  from_agent_id: agentId.optional().describe("the sending agent: required with a workspace-wide key; an agent-bound key sends as its agent"),
  type: handoffType,
  body: boundedJson(HANDOFF_LIMITS.maxBodyBytes, "body").describe(`any JSON, at most ${HANDOFF_LIMITS.maxBodyBytes} bytes and ${HANDOFF_LIMITS.maxJsonDepth} levels deep`),
  parent_id: idField("handoff").optional().describe("the handoff this one is part of (a sub-task)"),
  correlation_id: z
    .string()
    .regex(/^[A-Za-z0-9._:\/-]{1,128}$/, "1 to 128 characters of letters, digits and . _ : / -")
    .optional()
    .describe("shared by every handoff of one job; default: the parent's, else this handoff's own id"),
  expires_in_seconds: z.number().int().min(1).max(HANDOFF_LIMITS.maxExpiresInSeconds).optional().describe("past this the handoff is expired, done or not"),
  max_attempts: z.number().int().min(1).max(HANDOFF_LIMITS.maxAttempts).default(HANDOFF_LIMITS.defaultMaxAttempts).describe("claims allowed before it is dead"),
});
export type CreateHandoffInput = z.output<typeof createHandoffInput>;

const claimTtl = z.number().int().min(HANDOFF_LIMITS.minClaimTtlSeconds).max(HANDOFF_LIMITS.maxClaimTtlSeconds);

export const claimHandoffInput = z.object({
  ttl_seconds: claimTtl.default(HANDOFF_LIMITS.defaultClaimTtlSeconds).describe("how long the claim lives without a heartbeat (/extend)"),
  worker: z.string().min(1).max(100).optional().describe("a name for this worker, shown on the trace"),
});

export const extendHandoffInput = z.object({
  claim_id: claimId,
  ttl_seconds: claimTtl.default(HANDOFF_LIMITS.defaultClaimTtlSeconds).describe("the claim lives this long from now"),
});

export const completeHandoffInput = z.object({
  claim_id: claimId.describe("from the claim: proves this worker still holds it"),
  result: boundedJson(HANDOFF_LIMITS.maxResultBytes, "result").optional().describe(`any JSON for the sender, at most ${HANDOFF_LIMITS.maxResultBytes} bytes`),
});

export const failHandoffInput = z.object({
  claim_id: claimId,
  error: z.string().min(1).max(HANDOFF_LIMITS.maxErrorChars).describe("what went wrong, for the trace and the sender"),
  details: z
    .record(z.string().max(100), z.unknown())
    .refine((v) => Buffer.byteLength(canonicalJson(v)) <= HANDOFF_LIMITS.maxErrorDetailsBytes, `at most ${HANDOFF_LIMITS.maxErrorDetailsBytes} bytes of JSON`)
    .optional(),
  retry: z.boolean().default(true).describe("true: pending again while attempts remain; false: dead now"),
});

export const listHandoffsQuery = paginationQuery.extend({
  status: z.enum(HANDOFF_STATUSES).optional(),
  type: handoffType.optional(),
  role: z.enum(["received", "sent"]).optional().describe("received: handoffs to the key's agent (or agent_id); sent: from it"),
  agent_id: agentId.optional().describe("workspace-wide keys: handoffs to or from this agent"),
  correlation_id: z.string().min(1).max(128).optional(),
});
export type ListHandoffsQuery = z.output<typeof listHandoffsQuery>;

const iso = z.iso.datetime();

export const handoffEnvelopeSchema = z
  .object({
    id: z.string().describe("hof_..."),
    object: z.literal("handoff"),
    type: z.string(),
    from_agent_id: z.string(),
    to_agent_id: z.string(),
    correlation_id: z.string(),
    parent_id: z.string().nullable(),
    trace_id: z.string().describe("the x-trace-id it was created under, else its parent's, else its correlation id"),
    status: z.enum(HANDOFF_STATUSES),
    attempt: z.number().int().describe("claims so far (the live claim's number while claimed)"),
    max_attempts: z.number().int(),
    claim: z.object({ worker: z.string().nullable(), claimed_at: iso, expires_at: iso }).nullable().describe("while claimed"),
    expires_at: iso.nullable(),
    last_error: z.object({ message: z.string(), details: z.record(z.string(), z.unknown()).optional(), attempt: z.number().int() }).nullable(),
    dead_reason: z.enum(["failed", "attempts"]).nullable().describe("failed: a worker said not to retry; attempts: max_attempts used up"),
    created_at: iso,
    updated_at: iso,
    ended_at: iso.nullable(),
  })
  .meta({ id: "HandoffEnvelope" });

export const handoffSchema = handoffEnvelopeSchema
  .extend({ body: z.unknown().describe("the sender's JSON"), result: z.unknown().describe("the worker's result, once completed (null before)") })
  .meta({ id: "Handoff" });

export const claimedHandoffSchema = handoffSchema
  .extend({ claim_id: z.string().describe("send it with /extend, /complete and /fail") })
  .meta({ id: "ClaimedHandoff" });
