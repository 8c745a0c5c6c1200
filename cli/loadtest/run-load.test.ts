import { describe, expect, it, vi } from "vitest";
import { mergeRuns, runLoad } from "./run-load";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("runLoad", () => {
  it("counts only tasks started after the settling time, and rates them over the counted window", async () => {
    // On a fake clock (timers and performance.now), so each task takes exactly what it sleeps.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"] });
    try {
      const started = performance.now();
      // Tasks are slow while the run settles (a herd at the start), quick after.
      const run = runLoad({ concurrency: 4, seconds: 0.6, settleSeconds: 0.3 }, async () => {
        const early = performance.now() - started < 300;
        await sleep(early ? 120 : 10);
        return early ? "early" : "late";
      });
      await vi.advanceTimersByTimeAsync(1_000);
      const summary = await run;
      // Each client: early tasks at 0, 120 and 240 ms (uncounted), then 10 ms tasks from 360 ms
      // until the 600 ms deadline, 24 of them, each counted at its 10 ms.
      expect(summary.outcomes).toEqual({ late: 4 * 24 });
      expect(summary.p99_ms).toBe(10);
      expect(summary.seconds).toBeCloseTo(0.3, 6);
    } finally {
      vi.useRealTimers();
    }
  });

  it("merges slices of one target into one summary: latencies, seconds and outcomes added up", () => {
    const merged = mergeRuns([
      { latencies: [1, 2, 3], seconds: 1.5, outcomes: { "200": 3 } },
      { latencies: [4, 100], seconds: 0.5, outcomes: { "200": 1, "429": 1 } },
    ]);
    expect(merged).toMatchObject({ requests: 5, seconds: 2, per_second: 2.5, outcomes: { "200": 4, "429": 1 } });
    expect(merged.p99_ms).toBeGreaterThan(4);
  });
});
