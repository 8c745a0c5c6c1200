import { dueItems, nextDueTimes } from "./due";
import { eventTs, housekeepingEventName, workEvent, type CronJob, type InngestEvent, type WorkEventData, type WorkKind } from "./work";

/** Work this long overdue is assumed to have lost its event. */
export const SWEEP_GRACE_MS = 60_000;
/** Sweeps are armed per window of due times: at most one sweep per window, run `SWEEP_GRACE_MS` after it closes. */
export const SWEEP_WINDOW_MS = 10 * 60_000;
/** The longest a lost announcement delays its item past its due time (or past its commit, when it was due at once). */
export const LOST_WORK_BOUND_MS = SWEEP_WINDOW_MS + SWEEP_GRACE_MS;
/** The event that starts a sweep (Inngest). */
export const SWEEP_EVENT = "agentdraft/sweep";
/** At most this many items of one kind are re-announced per sweep (fairly across workspaces). */
const SWEEP_LIMIT = 1_000;

/**
 * The sweep that covers work due at `dueAt` (or now, if earlier): the one at the end of its
 * 10-minute window plus the grace. Its id names the window, so every write announcing work due
 * in one window arms one sweep between them (Inngest drops a repeated id). An idle deployment
 * arms none: no clock ticks, no query, and the database may scale to zero.
 */
export function sweepEventFor(dueAt: Date, now = Date.now()): InngestEvent {
  const windowEnd = Math.ceil(Math.max(dueAt.getTime(), now) / SWEEP_WINDOW_MS) * SWEEP_WINDOW_MS;
  // A window more than 6 days away is swept early (Inngest's longest delay); that sweep chains on.
  return { id: `sweep:${windowEnd}`, name: SWEEP_EVENT, data: { window_end: new Date(windowEnd).toISOString() }, ts: eventTs(windowEnd + SWEEP_GRACE_MS, now) };
}

/**
 * The production safety net (SPEC §7): events sent after commit only say "look now", and one
 * may be lost (Inngest unreachable, a crash between commit and send). A sweep lists work that is
 * overdue in the database, the source of truth, and announces it again (runs are idempotent: an
 * item announced twice is done once). Each id names the sweep's window, so a sweep announces an
 * item once, and a later sweep may again (a run that gave up after its retries gets another chance).
 */
export async function overdueWork(kinds: WorkKind[], now = new Date()): Promise<(InngestEvent & { data: WorkEventData })[]> {
  const before = new Date(now.getTime() - SWEEP_GRACE_MS);
  const window = Math.floor(now.getTime() / SWEEP_WINDOW_MS);
  const events: (InngestEvent & { data: WorkEventData })[] = [];
  for (const kind of kinds) {
    const items = await dueItems(kind, { before, limit: SWEEP_LIMIT, perWorkspace: Math.max(kind.limits.perWorkspace * 4, 20) });
    for (const item of items) {
      const e = workEvent(kind.name, item, now.getTime());
      events.push({ ...e, id: `${e.id}:swept:${window}` });
    }
  }
  return events;
}

/**
 * The sweep after this one, while the database holds work due later: the one covering the
 * earliest such due time (one query). Work written while no sweep was armed (its announcement
 * and its sweep lost together) is then still covered, and with no work left the chain ends.
 */
export async function nextSweep(kinds: WorkKind[], now = new Date()): Promise<InngestEvent[]> {
  const next = Math.min(...[...(await nextDueTimes(kinds, now)).values()].map((d) => d.getTime()));
  return Number.isFinite(next) ? [sweepEventFor(new Date(next), now.getTime())] : [];
}

/**
 * The housekeeping a sweep starts: each job that clears up after activity (not `whileIdle`), once
 * per its period (the event id names the period, so Inngest drops a second one).
 */
export function housekeepingEvents(jobs: CronJob[], now = Date.now()): InngestEvent[] {
  return jobs
    .filter((j) => !j.whileIdle)
    .map((j) => ({ id: `housekeeping:${j.name}:${Math.floor(now / j.everyMs)}`, name: housekeepingEventName(j.name), data: {} }));
}
