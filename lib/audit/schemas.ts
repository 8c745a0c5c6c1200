import { z } from "zod";
import { paginationQuery } from "../api/pagination";

const auditFilterFields = z.object({
  resource_id: z.string().min(1).max(100).optional(),
  resource_type: z.string().min(1).max(50).optional(),
  agent_id: z.string().min(1).max(100).optional(),
  /** Exact (`agent.created`) or a prefix ending in `*` (`hold.*`). */
  action: z.string().min(1).max(100).regex(/^[a-z_.]+\*?$/, "an action like agent.created, or a prefix like hold.*").optional(),
  trace_id: z.string().min(1).max(128).optional(),
  from: z.iso.datetime({ offset: true }).optional().describe("entries at or after this time (ISO 8601)"),
  to: z.iso.datetime({ offset: true }).optional().describe("entries before this time (ISO 8601)"),
});
const ordered = (f: { from?: string; to?: string }) => !f.from || !f.to || Date.parse(f.from) < Date.parse(f.to);
const orderMessage = { message: "from must be before to", path: ["to"] };

export const auditFilters = auditFilterFields.refine(ordered, orderMessage);
export type AuditFilters = z.infer<typeof auditFilters>;

export const listAuditQuery = auditFilterFields.extend(paginationQuery.shape).refine(ordered, orderMessage);

export const auditEntrySchema = z
  .object({
    object: z.literal("audit_entry"),
    id: z.string().describe("aud_..."),
    workspace_id: z.string(),
    seq: z.number().int().describe("position in the workspace's chain, from 1"),
    at: z.iso.datetime(),
    actor: z.object({ type: z.enum(["key", "member", "operator", "system"]), id: z.string() }),
    agent_id: z.string().nullable(),
    action: z.string(),
    resource: z.object({ type: z.string(), id: z.string() }),
    trace_id: z.string().nullable(),
    request_id: z.string().nullable(),
    summary: z.record(z.string(), z.unknown()),
    outcome: z.enum(["succeeded", "failed", "rejected"]),
    prev_hash: z.string(),
    hash: z.string().describe("sha256(prev_hash || canonical JSON of the entry without the hashes)"),
  })
  .meta({ id: "AuditEntry" });

export const chainVerificationSchema = z
  .object({
    object: z.literal("audit_verification"),
    valid: z.boolean(),
    entries_checked: z.number().int(),
    head: z.object({ seq: z.number().int(), hash: z.string() }),
    first_broken: z
      .object({
        seq: z.number().int(),
        id: z.string().nullable(),
        reason: z.enum(["seq_gap", "prev_hash_mismatch", "hash_mismatch", "entries_missing", "head_mismatch"]),
        detail: z.string(),
      })
      .nullable(),
    verified_at: z.iso.datetime(),
  })
  .meta({ id: "AuditVerification" });
