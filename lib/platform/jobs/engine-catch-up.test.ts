import { afterEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createEngine, type Engine } from "./engine";
import type { WorkItem, WorkKind } from "./work";
import { duePage } from "../../../test/helpers/work-page";
import { until } from "../../../test/helpers/until";

// How the engine catches up after a restart (lib/platform/jobs/crash.db.test.ts is the whole story
// on Postgres): it reads a backlog about once, and wakes when a dead process's lease ends, not at
// its idle poll. The "database" is an in-memory list honouring what the real queries do.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop(100)));
});

/** A table of items: due times as the source query lists them (a leased row is due when its lease ends). */
function store(db: Map<string, WorkItem>) {
  const reads = { next: 0 };
  return {
    reads,
    nextDueTimes: async (kinds: WorkKind[], after?: Date) => {
      reads.next++;
      const times = [...db.values()].map((i) => i.dueAt.getTime()).filter((t) => !after || t > after.getTime());
      return new Map<string, Date>(times.length ? kinds.map((k) => [k.name, new Date(Math.min(...times))]) : []);
    },
    // The real page: round by round over workspaces, each one's earliest first.
    dueItems: async (_: WorkKind, q: { before: Date; limit: number; perWorkspace?: number }) => duePage(db.values(), q),
  };
}

function start(o: { db: Map<string, WorkItem>; run: (i: WorkItem) => Promise<void>; concurrency: number; limits: WorkKind["limits"] }) {
  const k: WorkKind = { name: "deliver", source: () => sql`select 1`, run: o.run, limits: o.limits };
  const s = store(o.db);
  const e = createEngine({ kinds: [k], crons: [], concurrency: o.concurrency, idlePollMs: 60_000, acquireLock: async () => ({ release: async () => {}, lost: () => false }), log: () => {}, store: s });
  engines.push(e);
  e.start();
  return { engine: e, reads: s.reads };
}

describe("the engine catching up", () => {
  it("wakes when the lease of an attempt whose process died ends, though what is due is in hand (idle poll 60 s here)", async () => {
    // At start: a busy endpoint's 150 due deliveries, run one at a time (10 ms each), all read
    // into memory at once; and one delivery a dead process claimed, due when its lease ends, while
    // the busy ones still run. What is due is in hand, so the next read would wait for the idle poll.
    const db = new Map<string, WorkItem>();
    for (let i = 0; i < 150; i++) db.set(`busy-${i}`, { id: `busy-${i}`, workspaceId: "A", key: "busy", dueAt: new Date(Date.now() - 60_000 + i) });
    const leaseEnds = Date.now() + 800;
    db.set("leased", { id: "leased", workspaceId: "B", key: "other", dueAt: new Date(leaseEnds) });
    const order: string[] = [];
    let leasedRanAt = 0;
    const { reads } = start({
      db,
      concurrency: 100,
      limits: { perWorkspace: 24, perKey: 1, timeoutMs: 5_000 },
      run: async (i) => {
        db.set(i.id, { ...i, dueAt: new Date(Date.now() + 60_000) }); // claimed: leased
        if (i.id === "leased") leasedRanAt = Date.now();
        await sleep(10);
        order.push(i.id);
        db.delete(i.id);
      },
    });
    await until(() => order.includes("leased"));
    expect(leasedRanAt).toBeGreaterThanOrEqual(leaseEnds);
    // Before the busy endpoint's last (150 runs of 10 ms, one at a time): woken by what the
    // engine read, not by its poll.
    expect(order.indexOf("leased")).toBeLessThan(150);
    expect(reads.next).toBeLessThanOrEqual(6);
  });

  it("does not take from a page what finished while the page was read (the snapshot showed it still due)", async () => {
    // A page's query sees the table as it was when it began; the runs that end while it is read
    // commit after that. 1,200 due items, 5 ms each, and every page read takes 40 ms.
    const db = new Map<string, WorkItem>();
    for (let i = 0; i < 1200; i++) db.set(`item-${i}`, { id: `item-${i}`, workspaceId: `ws-${i % 12}`, key: null, dueAt: new Date(Date.now() - 60_000 + i) });
    const runs = new Map<string, number>();
    const k: WorkKind = {
      name: "deliver",
      source: () => sql`select 1`,
      limits: { perWorkspace: 24, timeoutMs: 5_000 },
      run: async (i) => {
        runs.set(i.id, (runs.get(i.id) ?? 0) + 1);
        await sleep(5);
        db.delete(i.id);
      },
    };
    const s = store(db);
    const slowReads = {
      ...s,
      dueItems: async (kind: WorkKind, q: { before: Date; limit: number; perWorkspace?: number }) => {
        const snapshot = await s.dueItems(kind, q);
        await sleep(40);
        return snapshot;
      },
    };
    const e = createEngine({ kinds: [k], crons: [], concurrency: 100, idlePollMs: 60_000, acquireLock: async () => ({ release: async () => {}, lost: () => false }), log: () => {}, store: slowReads });
    engines.push(e);
    e.start();
    await until(() => db.size === 0 && e.stats().running === 0);
    expect([...runs.values()].filter((n) => n > 1)).toEqual([]);
    expect(runs.size).toBe(1200);
    expect(e.stats().reads.added).toBe(1200);
  });

  it("reads a backlog about once: each page brings mostly work it did not hold", async () => {
    // What a crash leaves: 3,000 due deliveries, half of them one tenant's, each workspace one
    // endpoint (16 at once per endpoint, 24 per workspace), the production pool of 100.
    const db = new Map<string, WorkItem>();
    const sizes: Record<string, number> = { big: 1500, mid: 900, small: 600 };
    for (const [ws, n] of Object.entries(sizes)) for (let i = 0; i < n; i++) db.set(`${ws}-${i}`, { id: `${ws}-${i}`, workspaceId: ws, key: `endpoint-${ws}`, dueAt: new Date(Date.now() - 60_000 + i) });
    let done = 0;
    const { engine } = start({
      db,
      concurrency: 100,
      limits: { perWorkspace: 24, perKey: 16, timeoutMs: 5_000 },
      run: async (i) => {
        db.set(i.id, { ...i, dueAt: new Date(Date.now() + 60_000) }); // claimed: leased, due again only if the run died
        await sleep(2);
        db.delete(i.id);
        done++;
      },
    });
    await until(() => done === 3_000);
    const { reads } = engine.stats();
    expect(reads.added).toBe(3_000); // each read into memory once
    // A page is 400 (4 × the pool); the next is read when fewer than 100 are queued: at most a
    // quarter of a page is read again. (Pages of 48 per workspace, re-read every 500 ms, read each about 3 times.)
    expect(reads.rows).toBeLessThanOrEqual(Math.ceil(reads.added * (4 / 3)) + 400);
  });
});
