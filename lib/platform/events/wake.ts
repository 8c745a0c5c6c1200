import { EventEmitter } from "node:events";

// Wakes this process's event streams when a transaction that wrote events commits; streams
// on other instances notice within their polling interval. On globalThis: route bundles may
// each load their own copy of this module.
const g = globalThis as unknown as { __agentdraftEventsCommitted?: EventEmitter };
const committed = (g.__agentdraftEventsCommitted ??= new EventEmitter().setMaxListeners(0));

export const announceEventsCommitted = (workspaceId: string) => committed.emit(workspaceId);

/**
 * Watches a workspace's commits from now on: `wait` resolves at once if one came since the
 * last wait (so a commit between a read and the wait is not slept through), else at the next
 * commit, after `ms`, or on abort.
 */
export function watchEvents(workspaceId: string) {
  let pending = false;
  let wake: (() => void) | null = null;
  const onCommit = () => {
    pending = true;
    wake?.();
  };
  committed.on(workspaceId, onCommit);
  return {
    wait(ms: number, signal?: AbortSignal): Promise<void> {
      if (pending || signal?.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = null;
          pending = false;
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    },
    close: () => committed.off(workspaceId, onCommit),
  };
}
