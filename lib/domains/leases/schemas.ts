import { z } from "zod";
import { LEASE_STATUSES } from "../../../db/schema";
import { paginationQuery } from "../../platform/api/pagination";
import { canonicalJson } from "../../platform/crypto/canonical-json";

const MAX_METADATA_BYTES = 4096;
export const LEASE_TTL_MAX_SECONDS = 86_400;

export const resourceName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9:._/@-]*$/, "letters, digits and : . _ / @ - (e.g. deploy:staging, repo:web)")
  .describe("any name your agents agree on, e.g. deploy:staging or repo:web");

export const acquireLeaseInput = z.object({
  resource: resourceName,
  ttl_seconds: z.number().int().min(1).max(LEASE_TTL_MAX_SECONDS).describe("time to live, 1 s to 24 h; renew to keep it"),
  priority: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(50)
    .describe("0-100, recorded and bounded by the agent's ceiling; leases are exclusive, a higher priority never preempts a live lease"),
  metadata: z
    .record(z.string().max(100), z.unknown())
    .refine((m) => Buffer.byteLength(canonicalJson(m)) <= MAX_METADATA_BYTES, `at most ${MAX_METADATA_BYTES} bytes of JSON`)
    .default({}),
});
export type AcquireLeaseInput = z.output<typeof acquireLeaseInput>;

export const renewLeaseInput = z.object({
  ttl_seconds: z.number().int().min(1).max(LEASE_TTL_MAX_SECONDS).optional().describe("new time to live from now; default: the lease's own"),
});

export const verifyLeaseInput = z.object({
  resource: resourceName,
  fencing_token: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});

export const listLeasesQuery = paginationQuery.extend({
  resource: resourceName.optional(),
  status: z.enum(LEASE_STATUSES).optional().describe("active: live now; expired includes active leases past their TTL"),
});

export const leaseSchema = z
  .object({
    id: z.string().describe("lease_..."),
    object: z.literal("lease"),
    resource: z.string(),
    agent_id: z.string().nullable(),
    fencing_token: z.number().int().describe("strictly increases per resource, across releases and expiries: pass it to the systems you write to"),
    priority: z.number().int(),
    status: z.enum(LEASE_STATUSES).describe("`expired` as soon as expires_at passes, even before the expiry job runs"),
    ttl_seconds: z.number().int(),
    expires_at: z.iso.datetime(),
    metadata: z.record(z.string(), z.unknown()),
    renewed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    ended_at: z.iso.datetime().nullable().describe("when it was released or expired"),
  })
  .meta({ id: "Lease" });

export const leaseVerificationSchema = z
  .object({
    object: z.literal("lease_verification"),
    resource: z.string(),
    fencing_token: z.number().int(),
    newest_fencing_token: z.number().int().describe("the last token issued for the resource (0: none yet)"),
    live: z.boolean().describe("the lease holding this token is live now"),
    valid: z.boolean().describe("this token is the newest and its lease is live: accept the write"),
  })
  .meta({ id: "LeaseVerification" });
