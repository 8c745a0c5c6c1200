// @suite moved-clock
import { afterEach, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { createEngine, type Engine, type EngineOptions } from "./engine";
import type { RunnerLock } from "./runner-lock";
import type { WorkItem, WorkKind, WorkOutcome } from "./work";
import { duePage } from "../../../test/helpers/work-page";
import { until } from "../../../test/helpers/until";

// The engine's scheduling alone: kinds are plain functions and the "database" is an in-memory
// list, so these tests are about order, limits and isolation. The engine against a real
// database and real HTTP endpoints is tested in engine.db.test.ts.

const held = (): RunnerLock => ({ release: vi.fn(async () => {}), lost: () => false });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const item = (id: string, workspaceId: string, o: Partial<WorkItem> = {}): WorkItem => ({ id, workspaceId, dueAt: new Date(), ...o });

function kind(name: string, run: (i: WorkItem) => Promise<WorkOutcome>, limits: Partial<WorkKind["limits"]> = {}): WorkKind {
  return { name, source: () => sql`select 1`, run, limits: { perWorkspace: 4, timeoutMs: 5_000, ...limits } };
}

const engines: Engine[] = [];
function engine(o: Partial<EngineOptions> & { kinds: WorkKind[] }, dbItems: Map<string, WorkItem[]> = new Map()) {
  const e = createEngine({
    crons: [],
    concurrency: 8,
    idlePollMs: 60_000,
    acquireLock: async () => held(),
    log: () => {},
    store: {
      nextDueTimes: async (kinds) => new Map(kinds.filter((k) => dbItems.get(k.name)?.length).map((k) => [k.name, new Date(Math.min(...dbItems.get(k.name)!.map((i) => i.dueAt.getTime())))])),
      dueItems: async (k, q) => (dbItems.get(k.name) ?? []).filter((i) => i.dueAt <= q.before).slice(0, q.limit),
    },
    ...o,
  });
  engines.push(e);
  e.start();
  return e;
}
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop(100)));
});


describe("the embedded engine", () => {
  it("keeps a hanging tenant to its own limit: another tenant's work runs at once", async () => {
    const done: string[] = [];
    let hanging = 0;
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const deliver = kind(
      "deliver",
      async (i) => {
        if (i.workspaceId === "noisy") {
          hanging++;
          await answered; // a hanging endpoint: it answers when the test says so
        }
        done.push(i.id);
      },
      { perWorkspace: 4, perKey: 2 },
    );
    const e = engine({ kinds: [deliver], concurrency: 8 });
    e.notify("deliver", Array.from({ length: 150 }, (_, n) => item(`noisy-${n}`, "noisy", { key: "hanging-endpoint" })));
    await until(() => hanging >= 2);
    e.notify("deliver", Array.from({ length: 20 }, (_, n) => item(`quiet-${n}`, "quiet", { key: "fast-endpoint" })));
    // All of the quiet tenant's work is done while the noisy tenant's endpoint still hangs: none
    // of it waited behind a hanging run, however slow the machine.
    await until(() => done.filter((id) => id.startsWith("quiet")).length === 20);
    expect(done.filter((id) => id.startsWith("noisy"))).toEqual([]);
    expect(hanging).toBe(2);
    expect(e.stats().running).toBeLessThanOrEqual(2); // the noisy tenant's endpoint holds two runs, no more
    answer();
  });

  it("shares a backlog round-robin between workspaces", async () => {
    const order: string[] = [];
    const k = kind("k", async (i) => void order.push(i.workspaceId), { perWorkspace: 1 });
    const e = engine({ kinds: [k], concurrency: 1 });
    e.notify("k", [...Array.from({ length: 6 }, (_, n) => item(`a${n}`, "A")), item("b0", "B"), item("b1", "B"), item("c0", "C")]);
    await until(() => order.length === 9);
    expect(order.slice(0, 6)).toEqual(["A", "B", "C", "A", "B", "A"]);
  });

  it("isolates a run that throws: it is backed off, the others go on, and it is tried again", async () => {
    let poisonRuns = 0;
    const ok: string[] = [];
    const k = kind("k", async (i) => {
      if (i.id === "poison") {
        poisonRuns++;
        throw new Error("bad row");
      }
      ok.push(i.id);
    });
    const log = vi.fn();
    const e = engine({ kinds: [k], log }, new Map([["k", [item("poison", "A")]]]));
    e.notify("k", [item("poison", "A"), item("x", "A"), item("y", "B")]);
    await until(() => ok.length === 2 && poisonRuns >= 1);
    expect(log).toHaveBeenCalledWith("k poison failed", expect.any(Error));
    await sleep(300);
    expect(poisonRuns).toBe(1); // backed off (1 s), not spinning
  });

  it("abandons a run past its kind's timeout and frees the slot", async () => {
    const ran: string[] = [];
    const k = kind("k", async (i) => {
      if (i.id === "stuck") await new Promise(() => {});
      ran.push(i.id);
    }, { timeoutMs: 100, perWorkspace: 1 });
    const log = vi.fn();
    const e = engine({ kinds: [k], concurrency: 1, log });
    e.notify("k", [item("stuck", "A"), item("next", "A")]);
    await until(() => ran.includes("next"));
    expect(log).toHaveBeenCalledWith("k stuck failed", expect.objectContaining({ message: expect.stringMatching(/still running after 100 ms/) }));
  });

  it("runs timers at their due time, honours retryAt, and merges a burst of schedules into one run", async () => {
    const runs: { id: string; at: number }[] = [];
    let retried = false;
    const k = kind("k", async (i) => {
      runs.push({ id: i.id, at: Date.now() });
      if (i.id === "retry" && !retried) {
        retried = true;
        return { retryAt: new Date(Date.now() + 150) };
      }
    });
    const e = engine({ kinds: [k] });
    const t0 = Date.now();
    e.notify("k", [item("timer", "A", { dueAt: new Date(t0 + 200) })]);
    e.notify("k", [item("retry", "A")]);
    for (let n = 0; n < 10; n++) e.notify("k", [item("burst", "A", { dueAt: new Date(t0 + 100 + n * 10) })]);
    await until(() => runs.filter((r) => r.id === "retry").length === 2 && runs.some((r) => r.id === "timer"));
    await sleep(250);
    const timer = runs.find((r) => r.id === "timer")!;
    expect(timer.at - t0).toBeGreaterThanOrEqual(195);
    expect(runs.filter((r) => r.id === "burst")).toHaveLength(1);
    const [first, second] = runs.filter((r) => r.id === "retry");
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(140);
  });

  it("cancels a waiting timer, but keeps the one due at the new time (a hold extended)", async () => {
    const runs: WorkItem[] = [];
    const k = kind("k", async (i) => void runs.push(i));
    const e = engine({ kinds: [k] });
    const soon = new Date(Date.now() + 100);
    const later = new Date(Date.now() + 200);
    e.notify("k", [item("committed", "A", { dueAt: soon }), item("extended", "A", { dueAt: soon })]);
    e.cancel("k", ["committed"]);
    e.cancel("k", ["extended"], later);
    e.notify("k", [item("extended", "A", { dueAt: later })]);
    await sleep(400);
    expect(runs.map((r) => [r.id, r.dueAt.getTime()])).toEqual([["extended", later.getTime()]]);
  });

  it("finds work in the database that no notify announced (another process, a restart)", async () => {
    const ran: string[] = [];
    const k = kind("k", async (i) => void ran.push(i.id));
    engine({ kinds: [k] }, new Map([["k", [item("from-db-1", "A"), item("from-db-2", "B")]]]));
    await until(() => ran.length === 2);
    expect(ran.sort()).toEqual(["from-db-1", "from-db-2"]);
  });

  it("catches up a backlog left in the database at full speed as soon as it starts, fairly across workspaces (issue #37)", async () => {
    // What a crash leaves: 3,000 due deliveries over three workspaces (one of them holding half),
    // announced to nobody. Each run takes 4 ms; 16 run at once. At full speed that is under a
    // second (a kind takes at most 3/4 of the pool: 12 runs); read a page per refill interval, it took 23.
    const db = new Map<string, WorkItem>();
    const sizes: Record<string, number> = { big: 1500, mid: 900, small: 600 };
    for (const [ws, n] of Object.entries(sizes)) for (let i = 0; i < n; i++) db.set(`${ws}-${i}`, item(`${ws}-${i}`, ws, { key: `endpoint-${ws}`, dueAt: new Date(Date.now() - 60_000 + i) }));
    const done: { ws: string; at: number }[] = [];
    const deliver = kind(
      "deliver",
      async (i) => {
        await sleep(4);
        db.delete(i.id);
        done.push({ ws: i.workspaceId, at: Date.now() });
      },
      { perWorkspace: 24, perKey: 16 },
    );
    // The real store's page: at most `perWorkspace` of each workspace, round by round, earliest first.
    const dueItems = async (_: WorkKind, q: { before: Date; limit: number; perWorkspace?: number }) => duePage(db.values(), q);
    const pages: number[] = [];
    engine({
      kinds: [deliver],
      concurrency: 16,
      // A refill interval longer than any test: every page after the first is read because the
      // backlog needs it, never because an interval passed.
      refillMs: 3_600_000,
      store: {
        nextDueTimes: async () => new Map(db.size ? [["deliver", new Date(Math.min(...[...db.values()].map((i) => i.dueAt.getTime())))]] : []),
        dueItems: async (k, q) => {
          const page = await dueItems(k, q);
          pages.push(page.length);
          return page;
        },
      },
    });
    await until(() => done.length === 3000);
    // The whole backlog was read page by page as the pool ran low (64 items a page), not a page
    // per refill interval (which took over 20 s at 500 ms, and would never end here).
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(3000 / 64));
    expect(pages.reduce((n, p) => n + p, 0)).toBeGreaterThanOrEqual(3000);
    // Fair: while all three had work, each got about a third of the runs (the small one is not starved by the big one).
    const whileAllBusy = done.slice(0, 1500);
    for (const ws of Object.keys(sizes)) expect(whileAllBusy.filter((d) => d.ws === ws).length).toBeGreaterThan(400);
  });

  it("does not re-read the database every refill interval while all that is due was announced to it", async () => {
    // A steady stream of notified work, each item also in the database (as a committed delivery
    // is) until its run ends: a refill finds only what the engine already holds. On the embedded
    // database each of those reads stalls every other statement, so they wait for the idle poll.
    const db = new Map<string, WorkItem>();
    const reads = { next: 0, due: 0 };
    const k = kind("k", async (i) => {
      await sleep(30);
      db.delete(i.id);
    });
    const e = engine({
      kinds: [k],
      refillMs: 20,
      store: {
        nextDueTimes: async () => {
          reads.next++;
          return new Map(db.size ? [["k", new Date(Math.min(...[...db.values()].map((i) => i.dueAt.getTime())))]] : []);
        },
        dueItems: async (_, q) => {
          reads.due++;
          return [...db.values()].filter((i) => i.dueAt <= q.before).slice(0, q.limit);
        },
      },
    });
    for (let n = 0; n < 40; n++) {
      const it = item(`n-${n}`, "A");
      db.set(it.id, it);
      e.notify("k", [it]);
      await sleep(10);
    }
    await until(() => db.size === 0);
    // One read at start (and, at most, one that found a page it held); not one per 20 ms over ~400 ms.
    expect(reads.next).toBeLessThanOrEqual(3);
  });

  it("runs nothing while another process holds the lock", async () => {
    const run = vi.fn(async () => {});
    const e = engine({ kinds: [kind("k", run)], acquireLock: async () => null });
    e.notify("k", [item("a", "A")]);
    await sleep(100);
    expect(run).not.toHaveBeenCalled();
    expect(e.stats()).toMatchObject({ locked: false, queued: 1 });
  });

  it("runs a cron once a period, not at start", async () => {
    const run = vi.fn(async () => {});
    engine({ kinds: [], crons: [{ name: "purge", cron: "0 * * * *", everyMs: 150, run }] });
    await sleep(80);
    expect(run).not.toHaveBeenCalled();
    await until(() => run.mock.calls.length >= 1);
  });
});
