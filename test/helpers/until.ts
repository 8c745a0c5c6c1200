import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits until `check()` holds, looking every 5 ms. A stall guard, not a budget: how long the work
 * takes is the machine's business (the suite runs with both cores busy); a check that never holds
 * fails after `ms`, inside the test's own timeout.
 */
export async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still not so after ${ms / 1000} s`);
    await sleep(5);
  }
}
