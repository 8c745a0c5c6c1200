import { describe, expect, it } from "vitest";
import { runLoad } from "./run-load";

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
});
