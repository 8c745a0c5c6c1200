import { dueItems } from "./due";
import { toEventData, workEventName, type WorkEventData, type WorkKind } from "./work";

/** Work this long overdue is assumed to have lost its event. */
export const SWEEP_GRACE_MS = 60_000;
/** At most this many items of one kind are re-announced per sweep (fairly across workspaces). */
const SWEEP_LIMIT = 1_000;

/**
 * The production safety net (SPEC §7): events sent after commit only say "look now", and one
 * may be lost (Inngest unreachable, a crash between commit and send). Every few minutes the
 * sweeper lists work that is overdue in the database, the source of truth, and announces it
 * again. Runs are idempotent, so an item announced twice is done once.
 */
export async function overdueWork(kinds: WorkKind[], now = new Date()): Promise<{ name: string; data: WorkEventData }[]> {
  const before = new Date(now.getTime() - SWEEP_GRACE_MS);
  const events: { name: string; data: WorkEventData }[] = [];
  for (const kind of kinds) {
    const items = await dueItems(kind, { before, limit: SWEEP_LIMIT, perWorkspace: Math.max(kind.limits.perWorkspace * 4, 20) });
    for (const item of items) events.push({ name: workEventName(kind.name), data: toEventData(item) });
  }
  return events;
}
