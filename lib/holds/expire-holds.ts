import { and, eq, lte, sql } from "drizzle-orm";
import { queryable, transaction } from "../../db/transaction";
import { holds, type HoldRow } from "../../db/schema";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { emitEvent } from "../events/emit-event";
import { cancelWork, scheduleWork } from "../jobs/schedule";
import { serializeHold } from "./serialize";

/** The work kind that records one hold's expiry (lib/jobs/registry.ts): a timer at `expires_at`. */
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
 * entry in the same transaction. Correctness never waits for this (liveness is checked against
 * the clock everywhere); it records the fact and tells the agent. Returns whether it expired it.
 */
export async function expireHold(holdId: string): Promise<boolean> {
  return transaction(async (tx) => {
    const [h] = await tx
      .update(holds)
      .set({ status: "expired", endedAt: holds.expiresAt })
      .where(and(eq(holds.id, holdId), eq(holds.status, "held"), lte(holds.expiresAt, sql`clock_timestamp()`)))
      .returning();
    if (!h) return false;
    const actor: Actor = { type: "system", workspaceId: h.workspaceId, job: "hold-expiry" };
    await emitEvent(tx, actor, { type: "hold.expired", agentId: h.agentId, data: { hold: serializeHold(h) } });
    await appendAudit(tx, [
      { actor, action: "hold.expired", resource: { type: "hold", id: h.id }, agentId: h.agentId, summary: { expired_at: h.expiresAt.toISOString() } },
    ]);
    return true;
  });
}

/** Expires every hold past its TTL now (tests and the CLI; in the server each hold is its own timer). */
export async function expireHolds(): Promise<number> {
  const q = await queryable();
  const due = await q
    .select({ id: holds.id })
    .from(holds)
    .where(and(eq(holds.status, "held"), lte(holds.expiresAt, sql`clock_timestamp()`)))
    .orderBy(holds.expiresAt);
  let n = 0;
  for (const { id } of due) if (await expireHold(id)) n++;
  return n;
}
