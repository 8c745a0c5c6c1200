import type { LeaseRow } from "../../../db/schema";

/** A lease past its TTL is expired, whether or not the job ran. */
export const effectiveLeaseStatus = (l: Pick<LeaseRow, "status" | "expiresAt">, now = new Date()): LeaseRow["status"] =>
  l.status === "active" && l.expiresAt.getTime() <= now.getTime() ? "expired" : l.status;

export function serializeLease(l: LeaseRow, now = new Date()) {
  const status = effectiveLeaseStatus(l, now);
  return {
    id: l.id,
    object: "lease" as const,
    resource: l.resource,
    agent_id: l.agentId,
    fencing_token: Number(l.fencingToken),
    priority: l.priority,
    status,
    ttl_seconds: l.ttlSeconds,
    expires_at: l.expiresAt.toISOString(),
    metadata: l.metadata,
    renewed_at: l.renewedAt?.toISOString() ?? null,
    created_at: l.createdAt.toISOString(),
    ended_at: l.endedAt?.toISOString() ?? (status === "expired" ? l.expiresAt.toISOString() : null),
  };
}
