import { describe, expect, it } from "vitest";
import { mergeRuns, runLoad } from "./run-load";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("runLoad", () => {
  it("counts only tasks started after the settling time, and rates them over the counted window", async () => {
    const started = performance.now();
    // Tasks are slow while the run settles (a herd at the start), quick after.
    const summary = await runLoad({ concurrency: 4, seconds: 0.6, settleSeconds: 0.3 }, async () => {
      const early = performance.now() - started < 300;
      await sleep(early ? 120 : 10);
      return early ? "early" : "late";
    });
    expect(summary.outcomes.early).toBeUndefined();
    expect(summary.outcomes.late).toBeGreaterThan(0);
    expect(summary.p99_ms).toBeLessThan(100);
    expect(summary.seconds).toBeGreaterThan(0.25);
    expect(summary.seconds).toBeLessThan(0.6);
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
