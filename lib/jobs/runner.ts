import type { Job } from "./registry";

/** A held single-runner lock; `lost()` turns true if it is lost (its connection died). */
export type RunnerLock = { release: () => Promise<void>; lost: () => boolean };

export type RunnerOptions = {
  jobs: Job[];
  tickMs: number;
  /** Resolves to a lock, or null when another process holds it. */
  acquireLock: () => Promise<RunnerLock | null>;
  /** How often a process without the lock tries to take it over. */
  lockRetryMs?: number;
  clock?: () => number;
  log?: (message: string, err?: unknown) => void;
};

/**
 * The embedded runner: on every tick, runs each job whose interval has passed, one after
 * another (a job never overlaps itself or another), but only while this process holds the
 * single-runner lock. A failing job is logged and retried at its next interval.
 */
export function createRunner(o: RunnerOptions) {
  const clock = o.clock ?? Date.now;
  const log = o.log ?? ((m: string, err?: unknown) => console.error(`[jobs] ${m}`, err ?? ""));
  const lastRun = new Map<string, number>();
  let lock: RunnerLock | null = null;
  let nextLockTry = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  let stopping = false;

  async function tick(): Promise<void> {
    if (lock?.lost()) lock = null;
    if (!lock) {
      if (clock() < nextLockTry) return;
      nextLockTry = clock() + (o.lockRetryMs ?? 10_000);
      try {
        lock = await o.acquireLock();
      } catch (err) {
        log("could not take the runner lock", err);
      }
      if (!lock) return;
    }
    for (const job of o.jobs) {
      if (stopping) break;
      const last = lastRun.get(job.name);
      if (last !== undefined && clock() - last < job.intervalMs) continue;
      lastRun.set(job.name, clock());
      try {
        await job.run();
      } catch (err) {
        log(`job ${job.name} failed`, err);
      }
    }
  }

  const loop = () => {
    running = tick().finally(() => {
      running = undefined;
      if (!stopped) timer = setTimeout(loop, o.tickMs);
    });
  };

  return {
    /** Runs one tick now (tests). */
    tick,
    start() {
      if (!stopped) return;
      stopped = false;
      stopping = false;
      loop();
    },
    /** Stops after the tick in progress, then releases the lock. */
    async stop() {
      stopped = true;
      stopping = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
      await lock?.release();
      lock = null;
    },
  };
}
