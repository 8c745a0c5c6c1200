import { describe, expect, it, vi } from "vitest";
import { createRunner, type RunnerLock } from "./runner";

const held = (): RunnerLock => ({ release: vi.fn(async () => {}), lost: () => false });

describe("embedded job runner", () => {
  it("runs each job when its interval has passed, one after another", async () => {
    let now = 0;
    const calls: string[] = [];
    const runner = createRunner({
      jobs: [
        { name: "fast", intervalMs: 1000, run: async () => void calls.push("fast") },
        { name: "hourly", intervalMs: 3_600_000, run: async () => void calls.push("hourly") },
      ],
      tickMs: 1000,
      acquireLock: async () => held(),
      clock: () => now,
    });
    await runner.tick();
    now = 500;
    await runner.tick();
    now = 1000;
    await runner.tick();
    now = 3_600_000;
    await runner.tick();
    expect(calls).toEqual(["fast", "hourly", "fast", "fast", "hourly"]);
  });

  it("runs nothing while another process holds the lock, and takes over later", async () => {
    let now = 0;
    let free = false;
    const run = vi.fn(async () => {});
    const runner = createRunner({
      jobs: [{ name: "j", intervalMs: 1, run }],
      tickMs: 1,
      lockRetryMs: 10_000,
      acquireLock: async () => (free ? held() : null),
      clock: () => now,
    });
    await runner.tick();
    expect(run).not.toHaveBeenCalled();
    free = true;
    now = 5_000;
    await runner.tick(); // not retried before lockRetryMs
    expect(run).not.toHaveBeenCalled();
    now = 10_000;
    await runner.tick();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("logs a failing job and goes on with the others", async () => {
    const log = vi.fn();
    const ok = vi.fn(async () => {});
    const runner = createRunner({
      jobs: [
        { name: "bad", intervalMs: 1, run: async () => Promise.reject(new Error("nope")) },
        { name: "good", intervalMs: 1, run: ok },
      ],
      tickMs: 1,
      acquireLock: async () => held(),
      log,
    });
    await runner.tick();
    expect(ok).toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith("job bad failed", expect.any(Error));
  });

  it("never overlaps ticks, and stop waits for the running tick then releases the lock", async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const lock = held();
    const runner = createRunner({
      jobs: [
        {
          name: "slow",
          intervalMs: 0,
          run: async () => {
            active++;
            maxActive = Math.max(maxActive, active);
            await new Promise((r) => setTimeout(r, 30));
            runs++;
            active--;
          },
        },
      ],
      tickMs: 1,
      acquireLock: async () => lock,
    });
    runner.start();
    runner.start();
    await new Promise((r) => setTimeout(r, 200));
    await runner.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 60));
    expect(maxActive).toBe(1);
    expect(after).toBeGreaterThanOrEqual(2);
    expect(runs).toBe(after);
    expect(lock.release).toHaveBeenCalled();
  });
});
