import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { leases, type LeaseRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { cancelLeaseExpiry, scheduleLeaseExpiry } from "./expire-leases";

type Json = Record<string, unknown>;
type Changed = { lease: Json; deliveries: OutboxDelivery[]; changed: boolean } | { error: { code: "not_found" | "lease_expired" | "lease_not_active"; lease?: Json } };

/**
 * Renews or releases a lease in one statement (agentdraft_change_lease), under its resource's
 * lock. Only its holder (its agent's keys, or a workspace-wide key); another agent's lease is
 * not found. A lease past its TTL is dead: 409 lease_expired (acquire a new one).
 */
export async function changeLease(actor: Actor, leaseId: string, action: "renew" | "release", ttlSeconds?: number): Promise<LeaseRow> {
  const q = await queryable();
  const { rows } = await q.execute<{ out: Changed | string }>(sql`
    select agentdraft_change_lease(${JSON.stringify(actorJson(actor))}::jsonb, ${leaseId}, ${action}, ${ttlSeconds ?? null}::int) as out`);
  const out = jsonValue<Changed>(rows[0]!.out);
  if ("error" in out) {
    if (out.error.code === "not_found") throw notFound("lease", leaseId);
    const lease = rowFromJson(leases, out.error.lease!);
    if (out.error.code === "lease_expired") {
      throw new AppError("lease_expired", `Lease ${leaseId} expired at ${lease.expiresAt.toISOString()}.`, { expired_at: lease.expiresAt.toISOString() });
    }
    throw new AppError("lease_not_active", `Lease ${leaseId} is already ${lease.status}.`, { lease_status: lease.status });
  }
  const lease = rowFromJson(leases, out.lease);
  if (out.changed) {
    await Promise.all([
      announceOutbox(actor.workspaceId, out.deliveries),
      action === "renew" ? scheduleLeaseExpiry(lease, { renewed: true }) : cancelLeaseExpiry([leaseId]),
    ]);
  }
  return lease;
}
