// @suite moved-clock
import { afterAll, describe, expect, it } from "vitest";
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import { InngestDouble, nextCron } from "./inngest-double";

// The double's own semantics, on small functions served by the real SDK: what the app's tests
// lean on must hold here first (see inngest-double.ts for where each rule comes from).

const SIGNING_KEY = `signkey-test-${"a1".repeat(32)}`;
const double = new InngestDouble({ appId: "double-test", signingKey: SIGNING_KEY });
const eventApi = await double.listen();
const client = new Inngest({ id: "double-test", isDev: false, baseUrl: eventApi, eventKey: "k", signingKey: SIGNING_KEY });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let failures = 0;
const inFlight = new Map<string, number>();
const maxInFlight = new Map<string, number>();
const functions = [
  client.createFunction({ id: "sleeper", triggers: [{ event: "t/sleep" }], timeouts: { finish: "30s" } }, async ({ step }) => {
    await step.sleep("nap", "60s");
    return step.run("after", () => "woke");
  }),
  client.createFunction({ id: "flaky", triggers: [{ event: "t/flaky" }], retries: 3 }, async ({ step }) =>
    step.run("work", () => {
      if (++failures <= 2) throw new Error("not yet");
      return "done";
    }),
  ),
  client.createFunction({ id: "keyed", triggers: [{ event: "t/keyed" }], concurrency: [{ key: "event.data.k", limit: 1 }] }, async ({ event, step }) =>
    step.run("hold-slot", async () => {
      const k = String(event.data.k);
      inFlight.set(k, (inFlight.get(k) ?? 0) + 1);
      maxInFlight.set(k, Math.max(maxInFlight.get(k) ?? 0, inFlight.get(k)!));
      await sleep(30);
      inFlight.set(k, inFlight.get(k)! - 1);
      return k;
    }),
  ),
  client.createFunction(
    { id: "cancellable", triggers: [{ event: "t/later" }], cancelOn: [{ event: "t/cancel", if: "async.data.id == event.data.id" }] },
    async ({ step }) => step.run("work", () => "ran"),
  ),
  client.createFunction({ id: "ticker", triggers: [{ cron: "*/5 * * * *" }] }, async () => "tick"),
];
const handler = serve({ client, functions });
double.attach((req) => handler.POST(req as never, undefined as never), functions);
afterAll(() => double.close());

describe("the Inngest double", () => {
  it("cancels a run at its finish deadline, counted from its first execution with sleeping included", async () => {
    double.reset();
    await client.send({ name: "t/sleep", data: {} });
    await double.advance(120_000);
    const [run] = double.runsOf("sleeper");
    expect(run).toMatchObject({ status: "cancelled", cancelledBy: "finish timeout", endedAt: run!.startedAt! + 30_000 });
    expect(run!.log.map((l) => l.op)).toEqual(["Sleep"]);
  });

  it("starts a run at a future ts, and cancelOn cancels it while it waits", async () => {
    double.reset();
    const t0 = double.now;
    await client.send([
      { name: "t/later", data: { id: "a" }, ts: t0 + 60_000 },
      { name: "t/later", data: { id: "b" }, ts: t0 + 60_000 },
    ]);
    await double.advance(10_000);
    await client.send({ name: "t/cancel", data: { id: "a" } });
    await double.advance(60_000);
    const runs = double.runsOf("cancellable");
    expect(runs.map((r) => [r.event.data.id, r.status, r.startedAt])).toEqual([
      ["a", "cancelled", undefined],
      ["b", "completed", t0 + 60_000],
    ]);
  });

  it("retries a failing step after 15 s, then 30 s, and bills every attempt", async () => {
    double.reset();
    failures = 0;
    await client.send({ id: "flaky-once", name: "t/flaky", data: {} }); // an id: a send the SDK retries is still one run
    const t0 = double.now;
    await double.advance(60_000);
    const [run] = double.runsOf("flaky");
    expect(run!.status).toBe("completed");
    // The retries are timed from the first attempt (which starts as the event arrives, a tick of
    // the double's clock after the send on a busy machine).
    const attempts = run!.log.filter((l) => l.op !== "run-complete");
    expect(attempts[0]!.at - t0).toBeLessThan(1_000);
    expect(attempts.map((l) => [l.op, l.at - attempts[0]!.at])).toEqual([
      ["StepError", 0],
      ["StepError", 15_000],
      ["StepRun", 45_000],
    ]);
    expect(double.executions(t0) - double.runsOf("ticker").length).toBe(4); // one run, three step attempts (a tick may fall in this minute)
  });

  it("holds a concurrency key to its limit, while other keys go on", async () => {
    double.reset();
    await client.send([1, 2, 3].map((i) => ({ name: "t/keyed", data: { k: i === 3 ? "y" : "x" } })));
    await double.advance(1_000);
    expect(double.runsOf("keyed").map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(Object.fromEntries(maxInFlight)).toEqual({ x: 1, y: 1 });
  });

  it("drops an event whose id it saw in the last 24 hours, and fires crons on their schedule", async () => {
    double.reset();
    await client.send([{ id: "same", name: "t/later", data: { id: "c" } }, { id: "same", name: "t/later", data: { id: "c" } }]);
    await double.advance(3_600_000);
    expect(double.runsOf("cancellable")).toHaveLength(1);
    expect(double.runsOf("ticker")).toHaveLength(12);
    expect(nextCron("15 * * * *", Date.UTC(2025, 0, 1, 10, 15))).toBe(Date.UTC(2025, 0, 1, 11, 15));
  });
});
