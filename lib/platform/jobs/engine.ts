import { dueItems, nextDueTimes } from "./due";
import type { RunnerLock } from "./runner-lock";
import { runItem } from "./run-item";
import type { CronJob, WorkItem, WorkKind, WorkOutcome } from "./work";

export type EngineOptions = {
  kinds: WorkKind[];
  crons: CronJob[];
  /** Units of work running at once, over all kinds and workspaces. */
  concurrency: number;
  /** With nothing known to be due, ask the database again after this long (work from other processes). */
  idlePollMs: number;
  /** Resolves to the single-engine lock, or null while another process holds it. */
  acquireLock: () => Promise<RunnerLock | null>;
  lockRetryMs?: number;
  /** The database is read again at least this long after a read (work that stays due cannot spin the engine). */
  refillMs?: number;
  log?: (message: string, err?: unknown) => void;
  /** Where due work is read from: the database (tests of the scheduling alone pass another). */
  store?: { nextDueTimes: typeof nextDueTimes; dueItems: (kind: WorkKind, o: Parameters<typeof dueItems>[1]) => Promise<WorkItem[]> };
};

/** `limit`: the per-key limit's counter name, worked out once (a pick looks at it for every entry it passes). */
type Entry = { kind: WorkKind; item: WorkItem; key: string; limit?: string | null };

/** Known work is bounded: past this, new items are left to the database and found by a refill. */
const MAX_QUEUED = 20_000;
/** How many queued items of one group a pick looks at before moving to the next group. */
const SCAN_LIMIT = 200;
const BACKOFF_MAX_MS = 5 * 60_000;

/**
 * The embedded driver of the work registry (SPEC §7): a bounded pool of concurrent runs, one
 * item per run, with the registry's limits per workspace and per key, picked round-robin over
 * (kind, workspace) groups so a tenant with a flood of items or a hanging endpoint gets its share
 * and no more. Items arrive from this process after commit (`notify`), and from the database:
 * one query tells the earliest due time of every kind, and the engine sleeps until then (or
 * `idlePollMs`), so an idle engine costs one small query every few seconds. A run that throws,
 * hangs past its kind's timeout, or leaves its item due at once is backed off, alone.
 */
export function createEngine(o: EngineOptions) {
  const log = o.log ?? ((m: string, err?: unknown) => console.error(`[jobs] ${m}`, err ?? ""));
  const store = o.store ?? { nextDueTimes, dueItems };
  const kinds = new Map(o.kinds.map((k) => [k.name, k]));
  const groups = new Map<string, Map<string, Entry>>(); // group "kind|workspace" -> entries by key
  let groupOrder: string[] = [];
  let cursor = 0;
  let queued = 0;
  const running = new Set<string>();
  // One kind never takes the whole pool: a flood of hanging deliveries leaves room for timers and mail.
  const perKind = new Map<string, number>();
  const kindCap = Math.max(1, Math.ceil(o.concurrency * 0.75));
  const perWorkspace = new Map<string, number>();
  const perKey = new Map<string, number>();
  const backoff = new Map<string, { until: number; failures: number }>();
  const cronLastRun = new Map<string, number>();
  const cronsRunning = new Set<string>();
  let lock: RunnerLock | null = null;
  let nextLockTry = 0;
  let nextRefillAt = 0;
  /** Kinds whose last read of the database brought work this engine did not know: more may wait behind it (a backlog). */
  const catchingUp = new Set<string>();
  const queuedByKind = new Map<string, number>();
  let refilling: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  let stopped = true;
  const inFlight = new Set<Promise<unknown>>();
  /** Reads of due items: pages, rows in them, and rows that were new to the engine (what catching up costs). */
  const reads = { pages: 0, rows: 0, added: 0 };
  /** The same, per kind of work. */
  const readsByKind = new Map<string, { pages: number; rows: number; added: number }>();
  /**
   * Items that finished while a page of due items was being read: the page's snapshot may still
   * show them due (their outcome committed after it was taken), so they are not taken from it:
   * a backlog's item is read into memory once.
   */
  let finishedDuringRead: Set<string> | null = null;

  const entryKey = (kind: string, id: string) => `${kind}\u0000${id}`;
  const groupKey = (kind: string, workspaceId: string) => `${kind}|${workspaceId}`;
  /** The per-key limit's counter name, or null when the kind or the item has no key. */
  const limitKey = (e: Entry) => (e.limit !== undefined ? e.limit : (e.limit = e.item.key && e.kind.limits.perKey ? `${e.kind.name}|${e.item.key}` : null));
  const bump = (m: Map<string, number>, k: string, by: number) => {
    const n = (m.get(k) ?? 0) + by;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };

  /** Queues an item; true when it was not known yet. */
  function enqueue(kind: WorkKind, item: WorkItem): boolean {
    const key = entryKey(kind.name, item.id);
    const g = groupKey(kind.name, item.workspaceId);
    let group = groups.get(g);
    const existing = group?.get(key);
    if (existing) {
      // The earlier due time wins: a burst of schedules of one item is one run (debounce).
      if (item.dueAt < existing.item.dueAt) {
        existing.item = item;
        existing.limit = undefined;
      }
      return false;
    }
    if (queued >= MAX_QUEUED) return false;
    if (!group) {
      group = new Map();
      groups.set(g, group);
      groupOrder.push(g);
    }
    group.set(key, { kind, item, key });
    queued++;
    bump(queuedByKind, kind.name, 1);
    return true;
  }

  function dequeue(e: Entry): void {
    const g = groupKey(e.kind.name, e.item.workspaceId);
    const group = groups.get(g);
    if (group?.delete(e.key)) {
      queued--;
      bump(queuedByKind, e.kind.name, -1);
    }
    if (group && group.size === 0) {
      groups.delete(g);
      groupOrder = groupOrder.filter((x) => x !== g);
    }
  }

  /** The next runnable entry, round-robin over groups, or the earliest time something becomes runnable. */
  function pick(now: number): { entry?: Entry; soonest: number } {
    let soonest = Infinity;
    for (let i = 0; i < groupOrder.length; i++) {
      const g = groupOrder[(cursor + i) % groupOrder.length]!;
      const group = groups.get(g)!;
      const first = group.values().next().value as Entry;
      if ((perWorkspace.get(g) ?? 0) >= first.kind.limits.perWorkspace) continue;
      if ((perKind.get(first.kind.name) ?? 0) >= kindCap) continue;
      let scanned = 0;
      for (const e of group.values()) {
        if (++scanned > SCAN_LIMIT) break;
        const due = Math.max(e.item.dueAt.getTime(), backoff.get(e.key)?.until ?? 0);
        if (due > now) {
          soonest = Math.min(soonest, due);
          continue;
        }
        if (running.has(e.key)) continue;
        const k = limitKey(e);
        if (k && (perKey.get(k) ?? 0) >= e.kind.limits.perKey!) continue;
        cursor = (cursor + i + 1) % Math.max(groupOrder.length, 1);
        return { entry: e, soonest };
      }
    }
    return { soonest };
  }

  function start(e: Entry): void {
    dequeue(e);
    const g = groupKey(e.kind.name, e.item.workspaceId);
    const k = limitKey(e);
    running.add(e.key);
    bump(perWorkspace, g, 1);
    bump(perKind, e.kind.name, 1);
    if (k) bump(perKey, k, 1);
    const run = runItem(e.kind, e.item)
      .then((outcome: WorkOutcome) => {
        const retryAt = outcome && outcome.retryAt ? new Date(outcome.retryAt) : null;
        if (retryAt) {
          // A retry due at once would spin: it waits at least a second, growing if it keeps doing so.
          if (retryAt.getTime() <= Date.now()) backOff(e.key);
          else backoff.delete(e.key);
          enqueue(e.kind, { ...e.item, dueAt: retryAt });
        } else backoff.delete(e.key);
      })
      .catch((err) => {
        log(`${e.kind.name} ${e.item.id} failed`, err);
        backOff(e.key);
      })
      .finally(() => {
        running.delete(e.key);
        finishedDuringRead?.add(e.key);
        bump(perWorkspace, g, -1);
        bump(perKind, e.kind.name, -1);
        if (k) bump(perKey, k, -1);
        inFlight.delete(run);
        pump();
      });
    inFlight.add(run);
  }

  function backOff(key: string): void {
    const failures = (backoff.get(key)?.failures ?? 0) + 1;
    backoff.set(key, { until: Date.now() + Math.min(1_000 * 2 ** (failures - 1), BACKOFF_MAX_MS), failures });
  }

  function runCrons(now: number): number {
    let soonest = Infinity;
    for (const c of o.crons) {
      const last = cronLastRun.get(c.name);
      if (last === undefined) cronLastRun.set(c.name, now); // first run one period after start
      const due = (last ?? now) + c.everyMs;
      if (due > now || cronsRunning.has(c.name)) {
        soonest = Math.min(soonest, due);
        continue;
      }
      cronLastRun.set(c.name, now);
      cronsRunning.add(c.name);
      const p = c
        .run()
        .catch((err) => log(`${c.name} failed`, err))
        .finally(() => {
          cronsRunning.delete(c.name);
          inFlight.delete(p);
        });
      inFlight.add(p);
      soonest = Math.min(soonest, now + c.everyMs);
    }
    return soonest;
  }

  /**
   * Asks the database what is due (one query), then fetches due items of the kinds that have any.
   * A page is the kind's due items round by round over workspaces (each one's earliest first), so
   * it is shared fairly however many a workspace has; one not full holds all that is due.
   */
  function refill(): void {
    if (refilling) return;
    refilling = (async () => {
      const now = new Date();
      const next = await store.nextDueTimes(o.kinds);
      let earliest = Infinity;
      const inHand: WorkKind[] = [];
      for (const kind of o.kinds) {
        const due = next.get(kind.name);
        catchingUp.delete(kind.name);
        if (!due) continue;
        if (due.getTime() > now.getTime()) {
          earliest = Math.min(earliest, due.getTime());
          continue;
        }
        const limit = o.concurrency * 4;
        finishedDuringRead = new Set();
        const items = await store.dueItems(kind, { before: now, limit });
        const finished = finishedDuringRead;
        finishedDuringRead = null;
        let added = 0;
        let stale = 0;
        for (const item of items) {
          const key = entryKey(kind.name, item.id);
          if (finished.has(key)) stale++;
          else if (!running.has(key) && enqueue(kind, item)) added++;
        }
        reads.pages++;
        reads.rows += items.length;
        reads.added += added;
        const ofKind = readsByKind.get(kind.name) ?? { pages: 0, rows: 0, added: 0 };
        readsByKind.set(kind.name, { pages: ofKind.pages + 1, rows: ofKind.rows + items.length, added: ofKind.added + added });
        // Whether a finished one is due again (a failure, a retry kept in the database), the next
        // read says, a refill interval from now.
        if (stale > 0) earliest = Math.min(earliest, now.getTime());
        // A full page that brought new work: more waits behind it (what a crash or another process
        // left). The next page is read when fewer of the kind are queued than the pool runs at once
        // (pump), not on a clock: a backlog drains at full speed and is read about once (a page
        // holds at most a quarter of a page read before). A page not full holds all that is due.
        if (items.length >= limit) {
          if (added > 0) catchingUp.add(kind.name);
        } else inHand.push(kind);
      }
      if (inHand.length > 0) {
        // What falls due next of the kinds whose due work is all in hand (a lease of an attempt
        // whose process died ends, a retry): the engine wakes exactly then, not at its idle poll.
        for (const d of (await store.nextDueTimes(inHand, now)).values()) if (d.getTime() > now.getTime()) earliest = Math.min(earliest, d.getTime() + 1);
      }
      // The next read: when something falls due, or at the idle poll (work committed by another
      // process), and at least the refill interval later (what stays due cannot spin it).
      nextRefillAt = Math.max(now.getTime() + (o.refillMs ?? 500), Math.min(earliest, now.getTime() + o.idlePollMs));
    })()
      .catch((err) => {
        log("could not read due work", err);
        finishedDuringRead = null;
        catchingUp.clear();
        nextRefillAt = Date.now() + o.idlePollMs;
      })
      .finally(() => {
        refilling = undefined;
        pump();
      });
  }

  async function ensureLock(now: number): Promise<boolean> {
    if (lock?.lost()) {
      log("lost the engine lock; another process may run the work now");
      const old = lock;
      lock = null;
      // Its renewals stop and its row goes if still its own: a late renewal would otherwise hold
      // the lease for no one, this engine included (it asks again under a new holder).
      await old.release();
    }
    if (lock) return true;
    if (now < nextLockTry) return false;
    nextLockTry = now + (o.lockRetryMs ?? 10_000);
    try {
      lock = await o.acquireLock();
    } catch (err) {
      log("could not take the engine lock", err);
    }
    if (lock) nextRefillAt = 0;
    return lock !== null;
  }

  let pumping = false;
  let pumpAgain = false;
  function pump(): void {
    if (stopped) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    void (async () => {
      try {
        const now = Date.now();
        if (!(await ensureLock(now))) return arm(nextLockTry);
        if (now >= nextRefillAt) refill();
        const cronDue = runCrons(now);
        let soonest = Infinity;
        while (running.size < o.concurrency) {
          const { entry, soonest: s } = pick(Date.now());
          soonest = s;
          if (!entry) break;
          start(entry);
        }
        // Catching up on a backlog: read its next page before the pool runs dry.
        if (!refilling && [...catchingUp].some((k) => (queuedByKind.get(k) ?? 0) < o.concurrency)) refill();
        arm(Math.min(soonest, cronDue, nextRefillAt));
      } finally {
        pumping = false;
        if (pumpAgain) {
          pumpAgain = false;
          pump();
        }
      }
    })();
  }

  function arm(at: number): void {
    if (stopped) return;
    const when = Math.max(at, Date.now() + 5);
    if (timer && when >= wakeAt) return;
    clearTimeout(timer);
    wakeAt = when;
    timer = setTimeout(() => {
      timer = undefined;
      wakeAt = Infinity;
      pump();
    }, Math.min(when - Date.now(), 2 ** 31 - 1));
  }

  return {
    /** New work committed in this process: run it when due. */
    notify(kindName: string, items: WorkItem[]): void {
      const kind = kinds.get(kindName);
      if (!kind) return; // a kind not enabled here (e.g. Google without configuration)
      for (const item of items) enqueue(kind, item);
      pump();
    },
    /** Forget waiting items (a hold committed); keep one due exactly at `keepDueAt` (a hold extended). */
    cancel(kindName: string, ids: string[], keepDueAt?: Date): void {
      for (const id of ids) {
        const key = entryKey(kindName, id);
        for (const group of groups.values()) {
          const e = group.get(key);
          if (e && (!keepDueAt || e.item.dueAt.getTime() !== keepDueAt.getTime())) dequeue(e);
        }
      }
    },
    start(): void {
      if (!stopped) return;
      stopped = false;
      pump();
    },
    /** Stops starting work, waits up to `graceMs` for runs in progress, then releases the lock. */
    async stop(graceMs = 10_000): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await Promise.race([Promise.allSettled([...inFlight, refilling]), new Promise((r) => setTimeout(r, graceMs).unref())]);
      await lock?.release();
      lock = null;
    },
    /** What the engine holds now (health, tests). */
    stats: () => ({ queued, running: running.size, locked: lock !== null, reads: { ...reads }, readsByKind: Object.fromEntries(readsByKind) }),
  };
}

export type Engine = ReturnType<typeof createEngine>;
