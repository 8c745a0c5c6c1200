import { eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { workspaces, type WorkspaceRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";

export const preemptFloorInput = z.object({
  hold_preempt_min_priority: z.coerce.number().int().min(0).max(100).describe("holds asking for less never preempt; 0: off"),
});

/**
 * Sets the workspace's preemption floor (SPEC §12): a hold placed with a priority below it never
 * preempts another (lower-priority live holds in its way are conflicts). Read by the conflict
 * engine in the same statement that places the hold (agentdraft_place_hold).
 */
export async function setPreemptFloor(actor: Actor, value: number): Promise<WorkspaceRow> {
  const { hold_preempt_min_priority: floor } = preemptFloorInput.parse({ hold_preempt_min_priority: value });
  return transaction(async (tx) => {
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, actor.workspaceId)).for("update");
    if (!before) throw notFound("workspace", actor.workspaceId);
    if (before.holdPreemptMinPriority === floor) return before;
    const [row] = await tx.update(workspaces).set({ holdPreemptMinPriority: floor }).where(eq(workspaces.id, actor.workspaceId)).returning();
    await appendAudit(tx, [
      { actor, action: "workspace.preempt_floor_changed", resource: { type: "workspace", id: actor.workspaceId }, summary: { from: before.holdPreemptMinPriority, to: floor } },
    ]);
    return row!;
  });
}
