import { AppError } from "../../platform/errors";
import type { HoldRow } from "../../../db/schema";

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
