import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import type { LeaseRow } from "../../../db/schema";
import { jsonValue } from "../../../db/row-json";
import { announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { drainDue } from "../../platform/jobs/due";
import { cancelWork, scheduleWork } from "../../platform/jobs/schedule";

/** The work kind that records one lease's expiry (lib/composition/job-kinds.ts): a timer at `expires_at`. */
export const LEASE_EXPIRY_KIND = "lease.expire";

/** After the statement commits: wake the lease's expiry at its expires_at; a renewed lease's earlier timer is cancelled. */
export async function scheduleLeaseExpiry(lease: Pick<LeaseRow, "id" | "workspaceId" | "expiresAt">, opts: { renewed?: boolean } = {}): Promise<void> {
  await Promise.all([
    opts.renewed ? cancelWork(LEASE_EXPIRY_KIND, [lease.id], lease.expiresAt) : undefined,
    scheduleWork(LEASE_EXPIRY_KIND, [{ id: lease.id, workspaceId: lease.workspaceId, dueAt: lease.expiresAt }]),
  ]);
}

export const cancelLeaseExpiry = (ids: string[]): Promise<void> => cancelWork(LEASE_EXPIRY_KIND, ids);

/** Active leases, due at their expiry, for the work registry. */
export const activeLeasesSource = () => sql`select id, workspace_id, null::text as key, expires_at as due_at from leases where status = 'active'`;

/**
 * One unit of work: marks one lease expired if it is still active past its TTL, with
 * lease.expired and an audit entry, in one statement (agentdraft_expire_lease). Correctness
 * never waits for it: liveness is checked against the clock in every query.
 */
export async function expireLease(leaseId: string): Promise<boolean> {
  const q = await queryable();
  type Expired = { lease: { workspace_id: string }; deliveries: OutboxDelivery[] };
  const { rows } = await q.execute<{ out: Expired | string | null }>(sql`select agentdraft_expire_lease(${leaseId}) as out`);
  const out = jsonValue<Expired | null>(rows[0]?.out ?? null);
  if (!out) return false;
  await announceOutbox(out.lease.workspace_id, out.deliveries);
  return true;
}

/** Expires every lease past its TTL now (tests and the CLI; in the server each lease is its own timer). */
export const expireLeases = (): Promise<number> => drainDue(activeLeasesSource, expireLease);
