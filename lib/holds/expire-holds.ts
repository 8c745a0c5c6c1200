import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { holds } from "../../db/schema";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { emitEvent } from "../events/emit-event";
import { serializeHold } from "./serialize";

/**
 * Marks held holds past their TTL as expired and sends hold.expired. Correctness never waits
 * for this job (liveness is checked against the clock everywhere); it records the fact and
 * tells the agent. Safe to run concurrently: rows are claimed with SKIP LOCKED.
 */
export async function expireHolds(batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await transaction(async (tx) => {
      const due = await tx
        .select({ id: holds.id, workspaceId: holds.workspaceId })
        .from(holds)
        .where(and(eq(holds.status, "held"), lte(holds.expiresAt, sql`clock_timestamp()`)))
        .orderBy(holds.workspaceId, holds.expiresAt)
        .limit(batch)
        .for("update", { skipLocked: true });
      const workspaceId = due[0]?.workspaceId;
      if (!workspaceId) return 0;
      // One workspace per transaction: its audit chain head is the only one locked.
      const ids = due.filter((d) => d.workspaceId === workspaceId).map((d) => d.id);
      const expired = await tx
        .update(holds)
        .set({ status: "expired", endedAt: holds.expiresAt })
        .where(inArray(holds.id, ids))
        .returning();
      const actor: Actor = { type: "system", workspaceId, job: "hold-expiry" };
      for (const h of expired) {
        await emitEvent(tx, actor, { type: "hold.expired", agentId: h.agentId, data: { hold: serializeHold(h) } });
      }
      await appendAudit(
        tx,
        expired.map((h) => ({
          actor,
          action: "hold.expired",
          resource: { type: "hold", id: h.id },
          agentId: h.agentId,
          summary: { expired_at: h.expiresAt.toISOString() },
        })),
      );
      return expired.length;
    });
    total += done;
    if (done === 0) return total;
  }
}
