import { afterEach, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { createEngine, type Engine } from "./engine";
import type { RunnerLock } from "./runner-lock";
import type { WorkItem } from "./work";

// The engine's lock, lost (its renewals late on a busy machine or a stalled database) and taken
// again. The lease row itself is tested in engine.db.test.ts.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop(100)));
});

describe("the engine's lock", () => {
  it("lets go of a lock it lost (its renewals stop) and takes the lease again, so work goes on", async () => {
    // The first lock turns lost; while it is not released, a renewal of it still holds the lease.
    let held: "first" | "second" | null = null;
    const first: RunnerLock = { lost: () => true, release: vi.fn(async () => void (held = null)) };
    const second: RunnerLock = { lost: () => false, release: vi.fn(async () => {}) };
    const acquireLock = vi.fn(async () => {
      if (held === null) held = acquireLock.mock.calls.length === 1 ? "first" : "second";
      else return null;
      return held === "first" ? first : second;
    });
    const ran: string[] = [];
    const e = createEngine({
      kinds: [{ name: "k", source: () => sql`select 1`, run: async (i: WorkItem) => void ran.push(i.id), limits: { perWorkspace: 4, timeoutMs: 1_000 } }],
      crons: [],
      concurrency: 4,
      idlePollMs: 60_000,
      lockRetryMs: 20,
      acquireLock,
      log: () => {},
      store: { nextDueTimes: async () => new Map(), dueItems: async () => [] },
    });
    engines.push(e);
    e.start();
    await sleep(50);
    e.notify("k", [{ id: "after", workspaceId: "A", dueAt: new Date() }]);
    const deadline = Date.now() + 5_000;
    while (!ran.includes("after") && Date.now() < deadline) await sleep(10);
    expect(first.release).toHaveBeenCalled();
    expect(ran).toEqual(["after"]);
    expect(e.stats().locked).toBe(true);
  });
});
