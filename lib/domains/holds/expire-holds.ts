import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import type { HoldRow } from "../../../db/schema";
import { jsonValue } from "../../../db/row-json";
import { announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { drainDue } from "../../platform/jobs/due";
import { cancelWork, scheduleWork } from "../../platform/jobs/schedule";

/** The work kind that records one hold's expiry (lib/composition/job-kinds.ts): a timer at `expires_at`. */
export const HOLD_EXPIRY_KIND = "hold.expire";

/** After the transaction commits: wake the hold's expiry at its expires_at; an extended hold's earlier timer is cancelled. */
export async function scheduleHoldExpiry(hold: Pick<HoldRow, "id" | "workspaceId" | "expiresAt">, opts: { extended?: boolean } = {}): Promise<void> {
  await Promise.all([
    opts.extended ? cancelWork(HOLD_EXPIRY_KIND, [hold.id], hold.expiresAt) : undefined,
    scheduleWork(HOLD_EXPIRY_KIND, [{ id: hold.id, workspaceId: hold.workspaceId, dueAt: hold.expiresAt }]),
  ]);
}

/** After the transaction commits: the holds settled (committed, released, preempted), so their timers can stop. */
export function cancelHoldExpiry(holdIds: string[]): Promise<void> {
  return cancelWork(HOLD_EXPIRY_KIND, holdIds);
}

/** Held holds, due at their expiry, for the work registry. */
export const heldHoldsSource = () => sql`select id, workspace_id, null::text as key, expires_at as due_at from holds where status = 'held'`;

/**
 * One unit of work: marks one hold expired if it is still held and its TTL has passed (an
 * extend, commit or release meanwhile makes this a no-op), with hold.expired and an audit
 * entry, in one statement (agentdraft_expire_hold). Correctness never waits for this (liveness is checked against
 * the clock everywhere); it records the fact and tells the agent. Returns whether it expired it.
 */
export async function expireHold(holdId: string): Promise<boolean> {
  const q = await queryable();
  type Expired = { hold: { workspace_id: string }; deliveries: OutboxDelivery[] };
  const { rows } = await q.execute<{ out: Expired | string | null }>(sql`select agentdraft_expire_hold(${holdId}) as out`);
  const out = jsonValue<Expired | null>(rows[0]?.out ?? null);
  if (!out) return false;
  await announceOutbox(out.hold.workspace_id, out.deliveries);
  return true;
}

/** Expires every hold past its TTL now (tests and the CLI; in the server each hold is its own timer). */
export const expireHolds = (): Promise<number> => drainDue(heldHoldsSource, expireHold);
