import { summarize, type Summary } from "./stats";

export type LoadOptions = {
  /** Concurrent clients, each running tasks back to back. */
  concurrency: number;
  /** Stop starting tasks after this many seconds. */
  seconds: number;
  /** Optional cap on the total number of tasks. */
  maxTasks?: number;
  /**
   * Tasks started in the first this-many seconds run but are not counted (nor is their time):
   * clients that all start at once queue behind each other until they fall out of step, which
   * is the start of a run, not its steady state.
   */
  settleSeconds?: number;
  /** Called about once a second while running. */
  onProgress?: (done: number, elapsedSeconds: number, outcomes: Record<string, number>) => void;
};

/**
 * Runs `task(client)` from `concurrency` clients for a bounded time and count, timing each
 * task. A task returns an outcome label ("201", "hold_conflict", "error"...), counted.
 */
export async function runLoad(options: LoadOptions, task: (client: number) => Promise<string>): Promise<Summary> {
  const raw = await runLoadRaw(options, task);
  return summarize(raw.latencies, raw.seconds, raw.outcomes);
}

/** What a run counted, before summarizing: runs of one target can be merged (`mergeRuns`), then summarized. */
export type RawRun = { latencies: number[]; seconds: number; outcomes: Record<string, number> };

/** Several runs of one target as one (their latencies, seconds and outcomes added up). */
export function mergeRuns(runs: RawRun[]): Summary {
  const outcomes: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + v;
  return summarize(runs.flatMap((r) => r.latencies), runs.reduce((n, r) => n + r.seconds, 0), outcomes);
}

/** runLoad, answering what it counted rather than its summary. */
export async function runLoadRaw(options: LoadOptions, task: (client: number) => Promise<string>): Promise<RawRun> {
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const counted = started + (options.settleSeconds ?? 0) * 1000;
  const max = options.maxTasks ?? Number.POSITIVE_INFINITY;
  let issued = 0;
  const timer = options.onProgress
    ? setInterval(() => options.onProgress!(latencies.length, (performance.now() - started) / 1000, outcomes), 1000)
    : undefined;
  const client = async (id: number) => {
    while (performance.now() < deadline && issued < max) {
      issued++;
      const t0 = performance.now();
      let outcome: string;
      try {
        outcome = await task(id);
      } catch (err) {
        outcome = `error:${(err as Error).message.slice(0, 40)}`;
      }
      if (t0 < counted) continue;
      latencies.push(performance.now() - t0);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, (_, i) => client(i)));
  } finally {
    if (timer) clearInterval(timer);
  }
  return { latencies, seconds: (performance.now() - Math.min(counted, performance.now())) / 1000, outcomes };
}
