import { afterCommit } from "../../db/transaction";
import { jobRunnerMode } from "./job-runner-mode";
import { inngest } from "./inngest-client";
import { cancelEventName, toEventData, workEventName, type WorkItem } from "./work";

/** The embedded engine of this process, when it runs here (set by the engine itself). */
export type LocalEngine = { notify: (kind: string, items: WorkItem[]) => void; cancel: (kind: string, ids: string[], keepDueAt?: Date) => void };
const g = globalThis as unknown as { __agentdraftEngine?: LocalEngine };
export function setLocalEngine(engine: LocalEngine | undefined): void {
  g.__agentdraftEngine = engine;
}

/** How long the request path waits for Inngest to take its events before going on without it. */
const SEND_TIMEOUT_MS = 2_000;

/**
 * Announces work after the open transaction commits: the embedded engine of this process is
 * woken at once; on Inngest, one event per item is sent (best effort: a failure is logged and
 * the sweeper sends it later from the database, which already holds the work). Never before
 * the commit, so a run never looks for a row that is not there yet, and a rollback announces nothing.
 */
export function scheduleWork(kind: string, items: WorkItem[]): Promise<void> {
  if (items.length === 0) return Promise.resolve();
  return afterCommit(() => dispatch(kind, items));
}

/**
 * Cancels waiting runs of these items (a hold committed, released or preempted), except a run
 * due exactly at `keepDueAt` (a hold extended: its new timer stays, whichever event lands
 * first). Best effort, as above: a run that is not cancelled finds nothing to do.
 */
export function cancelWork(kind: string, ids: string[], keepDueAt?: Date): Promise<void> {
  if (ids.length === 0) return Promise.resolve();
  return afterCommit(async () => {
    const mode = jobRunnerMode();
    if (mode === "embedded") g.__agentdraftEngine?.cancel(kind, ids, keepDueAt);
    else if (mode === "inngest") await sendToInngest(ids.map((id) => ({ name: cancelEventName(kind), data: { id, keep_due_at: keepDueAt?.toISOString() ?? "" } })));
  });
}

async function dispatch(kind: string, items: WorkItem[]): Promise<void> {
  const mode = jobRunnerMode();
  if (mode === "embedded") return g.__agentdraftEngine?.notify(kind, items);
  if (mode !== "inngest") return;
  // The event id makes a resend of the same schedule a no-op at Inngest (deduplicated for 24 h).
  await sendToInngest(items.map((item) => ({ id: `${kind}:${item.id}:${item.dueAt.getTime()}`, name: workEventName(kind), data: toEventData(item) })));
}

type InngestEvent = { id?: string; name: string; data: Record<string, unknown> };
let queued: InngestEvent[] = [];
let flush: Promise<void> | null = null;

/**
 * Everything announced in one pass (all the work of one commit: deliveries, timers, sealing) goes
 * to Inngest in one request: the hooks of a commit run in one synchronous pass, and the batch is
 * sent on the microtask after it.
 */
function sendToInngest(events: InngestEvent[]): Promise<void> {
  queued.push(...events);
  return (flush ??= Promise.resolve().then(() => {
    const batch = queued;
    queued = [];
    flush = null;
    return sendNow(batch);
  }));
}

async function sendNow(events: InngestEvent[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${SEND_TIMEOUT_MS} ms`)), SEND_TIMEOUT_MS);
  });
  try {
    await Promise.race([inngest.send(events), timeout]);
  } catch (err) {
    console.error(`[jobs] could not send ${events.length} event(s) to Inngest (the sweeper will): ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
