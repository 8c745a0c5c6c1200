import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { leases, type LeaseRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { aboveCeiling } from "../holds";
import { scheduleLeaseExpiry } from "./expire-leases";
import type { AcquireLeaseInput } from "./schemas";

type LiveLease = { lease_id: string; agent_id: string | null; priority: number; fencing_token: number; expires_at: string };
type Acquired =
  | { lease: Record<string, unknown>; deliveries: OutboxDelivery[] }
  | { priority_above_ceiling: { max_priority: number } }
  | { conflict: LiveLease };

/**
 * Acquires an exclusive lease on a named resource in one statement (agentdraft_acquire_lease):
 * under the resource's row lock, a live lease refuses it with lease_conflict (whatever the
 * priorities: leases do not preempt); otherwise the lease gets the resource's next fencing token.
 * Which agent holds the resource is told only to workspace-wide keys and to that agent; the
 * holder's fencing token to nobody.
 */
export async function acquireLease(actor: Actor & { type: "key" }, input: AcquireLeaseInput): Promise<LeaseRow> {
  const q = await queryable();
  const { rows } = await q.execute<{ out: Acquired | string }>(sql`
    select agentdraft_acquire_lease(${JSON.stringify(actorJson(actor))}::jsonb, ${newId("lease")}, ${input.resource}, ${input.ttl_seconds}::int,
      ${input.priority}::int, ${JSON.stringify(input.metadata ?? {})}::jsonb) as out`);
  const out = jsonValue<Acquired>(rows[0]!.out);
  if ("priority_above_ceiling" in out) throw aboveCeiling(input.priority, out.priority_above_ceiling.max_priority);
  if ("conflict" in out) {
    // Never the holder's fencing token: with it another agent could write as the holder.
    const { fencing_token: _secret, ...live } = out.conflict;
    const visible = !actor.agentId || actor.agentId === live.agent_id;
    throw new AppError("lease_conflict", `${input.resource} is leased until ${live.expires_at}.`, {
      conflict: { lease_id: live.lease_id, agent_id: visible ? live.agent_id : null, priority: live.priority, expires_at: live.expires_at },
    });
  }
  const lease = rowFromJson(leases, out.lease);
  // Announced before the answer: on a serverless platform nothing runs after it.
  await Promise.all([announceOutbox(actor.workspaceId, out.deliveries), scheduleLeaseExpiry(lease)]);
  return lease;
}


