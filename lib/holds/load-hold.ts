import { and, eq, sql } from "drizzle-orm";
import type { Transaction } from "../../db/client";
import { holds, type HoldRow } from "../../db/schema";
import { AppError, notFound } from "../errors";
import type { Actor } from "../actor";
import { lockCalendars } from "../calendars/lock-calendars";
import { isLive } from "./live";

/**
 * Loads a hold of the actor's workspace for a transition: checks the actor may change it
 * (its own agent, or a workspace-wide key), optionally locks its calendars first (transitions
 * that keep time busy must queue with placements), then locks the hold row. `live` is judged
 * by the database clock after the locks are held.
 */
export async function loadHoldForChange(
  tx: Transaction,
  actor: Actor,
  holdId: string,
  opts: { lockCalendars: boolean },
): Promise<{ hold: HoldRow; live: boolean }> {
  const mine = and(eq(holds.id, holdId), eq(holds.workspaceId, actor.workspaceId));
  const [peek] = await tx.select({ calendarIds: holds.calendarIds, agentId: holds.agentId }).from(holds).where(mine);
  if (!peek) throw notFound("hold", holdId);
  if (actor.type === "key" && actor.agentId && peek.agentId !== actor.agentId) {
    throw new AppError("forbidden", "Only the hold's own agent, or a workspace-wide key, may change this hold.");
  }
  if (opts.lockCalendars) await lockCalendars(tx, actor.workspaceId, peek.calendarIds);
  const [row] = await tx
    .select({ hold: holds, live: sql<boolean>`(${isLive})` })
    .from(holds)
    .where(mine)
    .for("update");
  return { hold: row!.hold, live: Boolean(row!.live) };
}

/** Refuses a transition on a hold that is no longer live, with the code that says why. */
export function assertLive(hold: HoldRow, live: boolean): void {
  if (live) return;
  switch (hold.status) {
    case "preempted":
      throw new AppError("hold_preempted", `Hold ${hold.id} was preempted by ${hold.preemptedBy} (priority ${hold.preemptedByPriority}).`, {
        preempted_by: { hold_id: hold.preemptedBy, priority: hold.preemptedByPriority },
      });
    case "held":
    case "expired":
      throw new AppError("hold_expired", `Hold ${hold.id} expired at ${hold.expiresAt.toISOString()}.`, { expired_at: hold.expiresAt.toISOString() });
    default:
      throw new AppError("hold_not_active", `Hold ${hold.id} is already ${hold.status}.`, { hold_status: hold.status });
  }
}
