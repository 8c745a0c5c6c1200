import type { WorkItem, WorkKind, WorkOutcome } from "./work";

/**
 * Runs one item, bounded by its kind's timeout: past it the run is abandoned with an error (the
 * item's claim lets it run again). Both drivers bound each run this way (the embedded engine, and
 * on Inngest each step), never a whole Inngest run, whose clock would count time spent waiting.
 */
export async function runItem(kind: WorkKind, item: WorkItem): Promise<WorkOutcome> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      kind.run(item),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running after ${kind.limits.timeoutMs} ms; abandoned (its claim lets it run again)`)), kind.limits.timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
