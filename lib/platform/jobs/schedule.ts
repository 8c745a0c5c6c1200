import { waitUntil } from "@vercel/functions";
import { afterCommit } from "../../../db/transaction";
import { jobRunnerMode } from "./job-runner-mode";
import { inngest } from "./inngest-client";
import { sweepEventFor } from "./sweep";
import { cancelEventName, workEvent, type InngestEvent, type WorkItem } from "./work";

/** The embedded engine of this process, when it runs here (set by the engine itself). */
export type LocalEngine = { notify: (kind: string, items: WorkItem[]) => void; cancel: (kind: string, ids: string[], keepDueAt?: Date) => void };
const g = globalThis as unknown as { __agentdraftEngine?: LocalEngine };
export function setLocalEngine(engine: LocalEngine | undefined): void {
  g.__agentdraftEngine = engine;
}

/** How long a background send to Inngest may take before it is given up (the sweeper sends it later). */
const SEND_TIMEOUT_MS = 10_000;

/**
 * Announces work after the open transaction commits: the embedded engine of this process is
 * woken at once; on Inngest, one event per item is sent, due items at once and future ones with
 * their due time as `ts` (Inngest starts the run then). Never before the commit, so a run never
 * looks for a row that is not there yet, and a rollback announces nothing. On Inngest the send
 * runs after the response (`waitUntil` on Vercel, a background promise elsewhere): a write never
 * waits for Inngest. A lost send is a sweep's: the sweep covering these items' due times is armed
 * at once (before the commit when this is called inside a transaction; a one-statement write has
 * committed already, and its API request armed the current window's sweep as it started, see
 * `armSweepForWrite`).
 */
export function scheduleWork(kind: string, items: WorkItem[]): Promise<void> {
  if (items.length === 0) return Promise.resolve();
  if (jobRunnerMode() === "inngest") armSweeps(items);
  return afterCommit(() => dispatch(kind, items));
}

/**
 * Cancels waiting runs of these items (a hold committed, released or preempted), except a run
 * due exactly at `keepDueAt` (a hold extended: its new timer stays, whichever event lands
 * first). Best effort, as above: a run that is not cancelled finds nothing to do.
 */
export function cancelWork(kind: string, ids: string[], keepDueAt?: Date): Promise<void> {
  if (ids.length === 0) return Promise.resolve();
  return afterCommit(() => {
    const mode = jobRunnerMode();
    if (mode === "embedded") g.__agentdraftEngine?.cancel(kind, ids, keepDueAt);
    else if (mode === "inngest") sendToInngest(ids.map((id) => ({ name: cancelEventName(kind), data: { id, keep_due_at: keepDueAt?.toISOString() ?? "" } })));
  });
}

function dispatch(kind: string, items: WorkItem[]): void {
  const mode = jobRunnerMode();
  if (mode === "embedded") return g.__agentdraftEngine?.notify(kind, items);
  if (mode !== "inngest") return;
  sendToInngest(items.map((item) => workEvent(kind, item)));
}

/**
 * Called as a write starts, before its statement (the API's mutating requests): on Inngest, makes
 * sure the sweep of the current window is on its way, so a crash between the commit and the
 * announcement finds it there even for a one-statement write (its announcements all follow the
 * commit); that sweep then follows any work due later (`nextSweep`). Never waited for.
 */
export function armSweepForWrite(): void {
  if (jobRunnerMode() === "inngest") armSweeps([{ id: "", workspaceId: "", dueAt: new Date() }]);
}

/** Sweeps this process has armed (by id, until their time): a window's sweep is sent once per process. */
const armed = new Map<string, number>();

/**
 * Makes sure a sweep will look at these items' due windows, should their announcement be lost: sent
 * now, while the transaction is still open, so a crash between commit and announcement finds the
 * sweep already on its way (a rollback leaves a sweep that finds nothing). One request per process
 * per 10-minute window at most; an idle deployment arms nothing.
 */
function armSweeps(items: WorkItem[]): void {
  const now = Date.now();
  for (const [id, at] of armed) if (at < now) armed.delete(id);
  const fresh = new Map<string, InngestEvent>();
  for (const item of items) {
    const sweep = sweepEventFor(item.dueAt, now);
    if (!armed.has(sweep.id!)) fresh.set(sweep.id!, sweep);
  }
  if (fresh.size === 0) return;
  for (const e of fresh.values()) armed.set(e.id!, e.ts!);
  sendToInngest([...fresh.values()], () => {
    for (const id of fresh.keys()) armed.delete(id); // not sent: the next write arms it again
  });
}

let queued: { events: InngestEvent[]; onFail?: () => void }[] = [];
let flushing = false;
const inFlight = new Set<Promise<void>>();

/**
 * Everything announced in one pass (all the work of one commit: deliveries, timers, sealing) goes
 * to Inngest in one request: the hooks of a commit run in one synchronous pass, and the batch is
 * sent on the microtask after it, in the background: nobody waits for it.
 */
function sendToInngest(events: InngestEvent[], onFail?: () => void): void {
  queued.push({ events, onFail });
  if (flushing) return;
  flushing = true;
  const sent = Promise.resolve().then(() => {
    const batch = queued;
    queued = [];
    flushing = false;
    return sendNow(batch);
  });
  inFlight.add(sent);
  void sent.finally(() => inFlight.delete(sent));
  waitUntil(sent); // on Vercel: the function lives until the send is done, after its response
}

async function sendNow(batch: { events: InngestEvent[]; onFail?: () => void }[]): Promise<void> {
  const events = batch.flatMap((b) => b.events);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${SEND_TIMEOUT_MS} ms`)), SEND_TIMEOUT_MS);
  });
  try {
    await Promise.race([inngest.send(events), timeout]);
  } catch (err) {
    for (const b of batch) b.onFail?.();
    console.error(`[jobs] could not send ${events.length} event(s) to Inngest (the sweeper will): ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once every announcement started so far has been sent or given up (tests, benches, shutdown). */
export async function announcementsSent(): Promise<void> {
  while (inFlight.size > 0 || flushing) await Promise.allSettled([...inFlight, Promise.resolve()]);
}

/** Forgets which sweeps this process armed (tests that play a fresh process). */
export function forgetArmedSweeps(): void {
  armed.clear();
}
