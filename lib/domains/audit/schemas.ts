import { z } from "zod";
import { paginationQuery } from "../../platform/api/pagination";
import { idField } from "../../platform/api/id-field";

const auditFilterFields = z.object({
  resource_id: z.string().min(1).max(100).optional(),
  resource_type: z.string().min(1).max(50).optional(),
  agent_id: idField("agent").optional(),
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
        reason: z.enum(["seq_gap", "prev_hash_mismatch", "hash_mismatch", "entries_missing", "head_mismatch", "checkpoint_invalid", "checkpoint_ahead", "checkpoint_mismatch"]),
        detail: z.string(),
      })
      .nullable(),
    checkpoint: z
      .object({ seq: z.number().int(), hash: z.string(), signed_at: z.iso.datetime(), source: z.enum(["database", "witness"]) })
      .nullable()
      .describe("the signed checkpoint the chain was checked against (a witness's when given, else the latest stored)"),
    verified_at: z.iso.datetime(),
  })
  .meta({ id: "AuditVerification" });

export const verifyAuditQuery = z.object({
  checkpoint: z.string().min(20).max(4000).optional().describe("a checkpoint's jws kept by a witness: verify against it instead of the latest stored one"),
});

export const auditCheckpointSchema = z
  .object({
    id: z.string().describe("ckpt_..."),
    object: z.literal("audit_checkpoint"),
    seq: z.number().int(),
    hash: z.string(),
    signed_at: z.iso.datetime(),
    kid: z.string(),
    jws: z.string().describe("compact JWS (EdDSA) over {workspace_id, seq, hash, signed_at}; verify against /.well-known/jwks.json?workspace_id="),
  })
  .meta({ id: "AuditCheckpoint" });
