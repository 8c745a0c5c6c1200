import type { CalendarEventRow, HoldRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { changeHold } from "./change-hold";

/**
 * Turns a live hold into committed events, one per calendar, atomically. A hold past its TTL
 * or preempted cannot be committed (hold_expired / hold_preempted), nor one whose time became
 * busy in a linked Google calendar meanwhile (hold_conflict). Committing twice returns
 * the same events.
 */
export function commitHold(actor: Actor, holdId: string): Promise<{ hold: HoldRow; events: CalendarEventRow[] }> {
  return changeHold(actor, holdId, "commit");
}
