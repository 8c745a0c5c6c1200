import http from "node:http";
import { createHmac, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";

// A test double of Inngest's run semantics, for the one third-party service this machine cannot
// run. It plays both halves of Inngest: the event API the app sends to (a real HTTP server on
// loopback, `POST /e/<event key>`), and the executor that calls the app's real `/api/inngest`
// route handler with signed requests in the SDK's own protocol (one request per step, memoized
// step state in the body, 206 + ops back). What it models, and where Inngest says so:
// - `ts` in the future: the run is scheduled then (executor.go `schedule`: `evtTs.After(at)`).
// - `timeouts.finish`: counted from the run's first execution, sleeping included, enforced by an
//   eager cancellation at start + finish (executor.go `createEagerCancellationForTimeout`;
//   validate.go `checkFinishTimeout`). A step in flight completes; nothing after it runs.
// - `cancelOn`: a pause per cancel rule, written when the run is scheduled (so a run waiting for
//   its `ts` is cancellable), matched against later events, `event` interpolated then
//   (executor.go `createCancellationPauses`).
// - concurrency: limits on steps executing at once, per function or per key value.
// - retries: a failing step is retried `retries` times, after backoff.go's table (15 s, 30 s,
//   1 min, ...; without its 0–30 s jitter, so tests are exact).
// - event ids deduplicate for 24 hours, and a send the SDK retries (same id seed) is taken once;
//   debounce runs the last event `period` after it.
// - billing: "an execution is one function run or one step execution" (docs: durable-execution/
//   limits); every attempt of a step is one.
// Time is virtual: `advance(ms)` moves the clock and runs whatever falls due, awaiting each real
// request; nothing here sleeps in real time.

type Json = Record<string, unknown>;
type FnConfig = {
  id: string;
  triggers: ({ event: string; expression?: string } | { cron: string })[];
  steps: Record<string, { retries?: { attempts?: number } }>;
  concurrency?: number | { key?: string; limit: number; scope?: string } | { key?: string; limit: number; scope?: string }[];
  cancel?: { event: string; if?: string; timeout?: string }[];
  timeouts?: { start?: string; finish?: string };
  debounce?: { key?: string; period: string; timeout?: string };
};
export type ConfigurableFunction = { getConfig: (o: { baseUrl: URL; appPrefix: string }) => unknown[] };
export type RouteHandler = (req: Request) => Promise<Response>;
export type Event = { id?: string; name: string; data: Json; ts?: number };

export type Run = {
  id: string;
  fn: string;
  event: Event & { ts: number };
  status: "scheduled" | "running" | "completed" | "failed" | "cancelled";
  scheduledFor: number;
  startedAt?: number;
  endedAt?: number;
  cancelledBy?: "finish timeout" | "event";
  steps: Record<string, { type: "data"; data: unknown } | { type: "error"; error: unknown }>;
  stack: string[];
  attempt: number;
  /** Each op the run executed, with the virtual time it was executed at. */
  log: { op: string; name?: string; at: number; data?: unknown; error?: unknown }[];
  output?: unknown;
  pauses: { event: string; expression: string | null; expires: number }[];
  finishDeadline?: number;
  busy: boolean;
};

const BACKOFF_MS = [15, 30, 60, 120, 300, 600, 1200, 2400, 3600, 7200].map((s) => s * 1000);
const DEDUP_MS = 24 * 3600 * 1000;
const CANCEL_PAUSE_MS = 365 * 24 * 3600 * 1000;

export function durationMs(s: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;
  let matched = "";
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * units[m[2]!]!;
    matched += m[0];
  }
  if (matched !== s) throw new Error(`inngest double: cannot read duration "${s}"`);
  return total;
}

/** The value of `event.data.x.y` / `async.data.z` in a scope. */
function lookup(path: string, scope: Json): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Json)[k] : undefined), scope);
}

/** The expressions this app uses: `a.b == c.d` / `!=` joined by `&&` (anything else throws, never guesses). */
export function evaluate(expression: string, scope: Json): boolean {
  return expression.split("&&").every((clause) => {
    const m = /^\s*([\w.]+)\s*(==|!=)\s*([\w.]+|"[^"]*"|'[^']*')\s*$/.exec(clause);
    if (!m) throw new Error(`inngest double: unsupported expression "${expression}"`);
    const value = (t: string) => (/^["']/.test(t) ? t.slice(1, -1) : lookup(t, scope));
    const [a, b] = [value(m[1]!), value(m[3]!)];
    return m[2] === "==" ? a === b : a !== b;
  });
}

/** The next time a cron fires after `after` (minute and hour fields: `*`, `*\/n`, a number; the rest `*`). */
export function nextCron(cron: string, after: number): number {
  const [min, hour, ...rest] = cron.split(" ");
  if (rest.some((f) => f !== "*")) throw new Error(`inngest double: unsupported cron "${cron}"`);
  const fits = (field: string, v: number) => field === "*" || (field.startsWith("*/") ? v % Number(field.slice(2)) === 0 : Number(field) === v);
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  for (let i = 0; i < 60 * 24 * 2; i++, t += 60_000) {
    const d = new Date(t);
    if (fits(min!, d.getUTCMinutes()) && fits(hour!, d.getUTCHours())) return t;
  }
  throw new Error(`inngest double: cron "${cron}" never fires`);
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .filter((k) => (v as Json)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Json)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

export class InngestDouble {
  now: number;
  readonly runs: Run[] = [];
  /** Every event received, in order. */
  readonly events: (Event & { ts: number; receivedAt: number; duplicate: boolean })[] = [];
  private fns = new Map<string, FnConfig>();
  private jobs: { at: number; seq: number; what: () => Promise<void> | void }[] = [];
  private seq = 0;
  private seenIds = new Map<string, number>();
  private seeds = new Set<string>();
  private debounced = new Map<string, { run: Run; at: number; latest: number; firstAt: number }>();
  private inFlight = new Map<string, number>(); // concurrency key -> steps executing
  private ingesting = new Set<Promise<void>>();
  private server?: http.Server;
  /** Set to make the event API slow (ms per request), as a slow Inngest would be. */
  eventApiDelayMs = 0;
  /** Set to hold every request to the event API unanswered (and its events not taken) until it settles. */
  eventApiHeld: Promise<void> | null = null;
  /** Requests to the event API being held (eventApiHeld). */
  eventApiHolding = 0;
  /** Set to refuse every event (Inngest unreachable). */
  eventApiDown = false;

  private route?: RouteHandler;
  /** Requests (batches of events) for which this returns true are lost on the way (a crash between commit and send). */
  drop: (batch: Event[]) => boolean = () => false;

  constructor(
    private o: {
      appId: string;
      signingKey: string;
      /** Awaited after each executed request: lets the app's background announcements arrive. */
      quiesce?: () => Promise<void>;
    },
  ) {
    this.now = Date.now();
  }

  /**
   * Syncs the app: reads each function's configuration as the SDK registers it (triggers,
   * concurrency, cancelOn, timeouts, debounce, retries) and calls `route` to run them.
   */
  attach(route: RouteHandler, functions: object[]): void {
    this.route = route;
    const baseUrl = new URL("http://127.0.0.1/api/inngest");
    // The SDK's own registration body (what `serve` syncs to Inngest): InngestFunction's getConfig, private in its types.
    for (const f of functions as unknown as ConfigurableFunction[]) for (const c of f.getConfig({ baseUrl, appPrefix: this.o.appId }) as FnConfig[]) this.fns.set(c.id, c);
    this.reset();
  }

  /** A fresh timeline starting now: no runs, no events, crons armed from now. */
  reset(): void {
    this.now = Date.now();
    this.runs.length = 0;
    this.events.length = 0;
    this.jobs = [];
    this.waiting = [];
    this.seenIds.clear();
    this.debounced.clear();
    this.drop = () => false;
    for (const [id, fn] of this.fns) for (const t of fn.triggers) if ("cron" in t) this.armCron(id, t.cron);
  }

  /** The event API, on loopback: the app's INNGEST_BASE_URL points here. */
  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        const done = (async () => {
          if (this.eventApiDelayMs) await new Promise((r) => setTimeout(r, this.eventApiDelayMs));
          if (this.eventApiHeld) {
            this.eventApiHolding++;
            await this.eventApiHeld;
            this.eventApiHolding--;
          }
          if (this.eventApiDown || !req.url?.startsWith("/e/")) return void req.socket.destroy();
          const parsed = JSON.parse(body) as Event | Event[];
          const events = Array.isArray(parsed) ? parsed : [parsed];
          // The SDK retries a send (5 attempts) with the same id seed, from which Inngest derives
          // the events' internal ids: a retried request is the same events, taken once.
          const seed = req.headers["x-inngest-event-id-seed"];
          const retried = typeof seed === "string" && this.seeds.has(seed);
          if (typeof seed === "string") this.seeds.add(seed);
          if (!retried && !this.drop(events)) for (const e of events) this.ingest(e);
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: events.map(() => randomUUID()), status: 200 }));
        })();
        this.ingesting.add(done);
        void done.finally(() => this.ingesting.delete(done));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Executions as Inngest bills them: one per run, one per step attempt. */
  executions(since = -Infinity): number {
    let n = 0;
    for (const r of this.runs) {
      if (r.startedAt !== undefined && r.startedAt >= since) n++;
      n += r.log.filter((l) => l.at >= since && l.op !== "run-complete" && l.op !== "run-failed").length;
    }
    return n;
  }

  runsOf(fnId: string): Run[] {
    return this.runs.filter((r) => r.fn === `${this.o.appId}-${fnId}`);
  }

  /** Moves virtual time forward by `ms`, running everything that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.now + ms;
    await this.settle();
    for (;;) {
      this.jobs.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.jobs[0];
      if (!next || next.at > target) break;
      this.now = Math.max(this.now, next.at);
      // Everything due at this instant starts together (concurrency limits decide who waits).
      const batch = this.jobs.filter((j) => j.at <= this.now);
      this.jobs = this.jobs.filter((j) => j.at > this.now);
      await Promise.all(batch.map((j) => j.what()));
      await this.settle();
    }
    this.now = target;
  }

  private async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) {
      await this.o.quiesce?.();
      if (this.ingesting.size === 0) return;
      await Promise.allSettled([...this.ingesting]);
    }
  }

  private at(at: number, what: () => Promise<void> | void): void {
    this.jobs.push({ at, seq: this.seq++, what });
  }

  private armCron(fnId: string, cron: string): void {
    const at = nextCron(cron, this.now);
    this.at(at, () => {
      this.armCron(fnId, cron);
      this.schedule(fnId, { name: "inngest/scheduled.timer", data: { cron }, ts: at });
    });
  }

  ingest(e: Event): void {
    const ts = e.ts ?? this.now;
    const duplicate = e.id !== undefined && (this.seenIds.get(e.id) ?? -Infinity) > this.now - DEDUP_MS;
    this.events.push({ ...e, ts, receivedAt: this.now, duplicate });
    if (duplicate) return;
    if (e.id) this.seenIds.set(e.id, this.now);
    // Cancellation pauses written before this event.
    for (const run of this.runs) {
      if (run.status === "completed" || run.status === "failed" || run.status === "cancelled") continue;
      for (const p of run.pauses) {
        if (p.event !== e.name || p.expires < this.now) continue;
        if (p.expression === null || evaluate(p.expression, { async: e, event: run.event })) this.cancel(run, "event");
      }
    }
    for (const [id, fn] of this.fns) for (const t of fn.triggers) if ("event" in t && t.event === e.name) this.schedule(id, { ...e, ts });
  }

  private schedule(fnId: string, event: Event & { ts: number }): void {
    const fn = this.fns.get(fnId)!;
    if (fn.debounce) {
      const existing = this.debounced.get(fnId);
      const period = durationMs(fn.debounce.period);
      if (existing) {
        existing.run.event = event;
        existing.latest = Math.min(this.now + period, existing.firstAt + (fn.debounce.timeout ? durationMs(fn.debounce.timeout) : Infinity));
        return;
      }
    }
    const run: Run = {
      id: randomUUID(),
      fn: fnId,
      event,
      status: "scheduled",
      scheduledFor: Math.max(this.now, event.ts),
      steps: {},
      stack: [],
      attempt: 0,
      log: [],
      pauses: (fn.cancel ?? []).map((c) => ({
        event: c.event,
        // `event` is interpolated when the pause is written; `async` stays for the incoming event.
        expression: c.if ?? null,
        expires: this.now + (c.timeout ? durationMs(c.timeout) : CANCEL_PAUSE_MS),
      })),
      busy: false,
    };
    this.runs.push(run);
    if (fn.debounce) {
      const d = { run, at: 0, latest: this.now + durationMs(fn.debounce.period), firstAt: this.now };
      this.debounced.set(fnId, d);
      const fire = () => {
        if (this.now < d.latest) return this.at(d.latest, fire);
        this.debounced.delete(fnId);
        run.scheduledFor = Math.max(this.now, run.event.ts);
        this.at(run.scheduledFor, () => this.step(run));
      };
      this.at(d.latest, fire);
      return;
    }
    this.at(run.scheduledFor, () => this.step(run));
  }

  private cancel(run: Run, by: Run["cancelledBy"]): void {
    if (run.status === "completed" || run.status === "failed" || run.status === "cancelled") return;
    run.status = "cancelled";
    run.cancelledBy = by;
    run.endedAt = this.now;
  }

  private concurrencyKeys(run: Run): { key: string; limit: number }[] {
    const fn = this.fns.get(run.fn)!;
    const c = fn.concurrency;
    const limits = c === undefined ? [] : typeof c === "number" ? [{ limit: c, key: undefined }] : Array.isArray(c) ? c : [c];
    return limits.map((c, i) => ({
      key: `${run.fn}#${i}#${c.key ? String(lookup(c.key, { event: run.event })) : ""}`,
      limit: c.limit,
    }));
  }

  /** One request to the app: the next step of a run (or its first execution). */
  private async step(run: Run): Promise<void> {
    if (run.status === "cancelled" || run.status === "completed" || run.status === "failed") return;
    const fn = this.fns.get(run.fn)!;
    if (run.finishDeadline !== undefined && this.now > run.finishDeadline) return this.cancel(run, "finish timeout");
    const keys = this.concurrencyKeys(run);
    if (keys.some((k) => (this.inFlight.get(k.key) ?? 0) >= k.limit)) {
      // Waits for a slot: tried again when any step of this function finishes.
      this.waiting.push(run);
      return;
    }
    for (const k of keys) this.inFlight.set(k.key, (this.inFlight.get(k.key) ?? 0) + 1);
    run.busy = true;
    if (run.startedAt === undefined) {
      run.startedAt = this.now;
      run.status = "running";
      if (fn.timeouts?.finish) {
        run.finishDeadline = this.now + durationMs(fn.timeouts.finish);
        this.at(run.finishDeadline, () => (run.busy ? undefined : this.cancel(run, "finish timeout")));
      }
    }
    const maxAttempts = (Object.values(fn.steps)[0]?.retries?.attempts ?? 3) + 1;
    try {
      const res = await this.call(run, maxAttempts);
      this.handle(run, res, maxAttempts);
    } finally {
      run.busy = false;
      for (const k of keys) this.inFlight.set(k.key, this.inFlight.get(k.key)! - 1);
      const waiting = this.waiting.filter((w) => w.fn === run.fn);
      this.waiting = this.waiting.filter((w) => w.fn !== run.fn);
      for (const w of waiting) this.at(this.now, () => this.step(w));
    }
  }

  private waiting: Run[] = [];

  private async call(run: Run, maxAttempts: number): Promise<{ status: number; body: unknown; noRetry: boolean }> {
    const body = canonicalJson({
      event: run.event,
      events: [run.event],
      steps: run.steps,
      ctx: { run_id: run.id, attempt: run.attempt, max_attempts: maxAttempts, disable_immediate_execution: false, use_api: false, stack: { stack: run.stack, current: Math.max(run.stack.length - 1, 0) } },
      version: 2,
    });
    const t = Math.floor(Date.now() / 1000).toString();
    const key = this.o.signingKey.replace(/^signkey-[\w]+-/, "");
    const signature = createHmac("sha256", key).update(body + t).digest("hex");
    const url = `http://127.0.0.1/api/inngest?fnId=${encodeURIComponent(run.fn)}&stepId=step`;
    const res = await this.route!(
      new Request(url, { method: "POST", body, headers: { "content-type": "application/json", "x-inngest-signature": `t=${t}&s=${signature}`, "x-inngest-server-kind": "cloud" } }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, noRetry: res.headers.get("x-inngest-no-retry") === "true" };
  }

  private handle(run: Run, res: { status: number; body: unknown; noRetry: boolean }, maxAttempts: number): void {
    const cancelled = run.status === "cancelled"; // a step in flight completes; nothing after it runs
    if (res.status === 200) {
      run.log.push({ op: "run-complete", at: this.now, data: res.body });
      run.output = res.body;
      if (!cancelled) Object.assign(run, { status: "completed", endedAt: this.now });
      return;
    }
    if (res.status === 206) {
      const ops = res.body as { op: string; id: string; name?: string; displayName?: string; data?: unknown; error?: unknown }[];
      for (const op of ops) {
        run.log.push({ op: op.op, name: op.displayName ?? op.name, at: this.now, data: op.data, error: op.error });
        if (op.op === "StepRun" || op.op === "Step") {
          run.steps[op.id] = { type: "data", data: op.data ?? null };
          run.stack.push(op.id);
          run.attempt = 0;
          if (!cancelled) this.at(this.now, () => this.step(run));
        } else if (op.op === "StepError") {
          run.attempt++;
          if (!cancelled) this.at(this.now + BACKOFF_MS[Math.min(run.attempt - 1, BACKOFF_MS.length - 1)]!, () => this.step(run));
        } else if (op.op === "StepFailed") {
          run.steps[op.id] = { type: "error", error: op.error };
          run.stack.push(op.id);
          run.attempt = 0;
          if (!cancelled) this.at(this.now, () => this.step(run));
        } else if (op.op === "Sleep") {
          const until = /^\d{4}-\d\d-\d\dT/.test(op.name ?? "") ? Date.parse(op.name!) : this.now + durationMs(op.name ?? "");
          if (cancelled) continue;
          this.at(Math.max(until, this.now), () => {
            if (run.status !== "running") return;
            run.steps[op.id] = { type: "data", data: null };
            run.stack.push(op.id);
            return this.step(run);
          });
        } else throw new Error(`inngest double: op ${op.op} is not modelled`);
      }
      return;
    }
    // The function failed outside a step: retried as a whole while attempts remain.
    run.log.push({ op: "run-failed", at: this.now, error: res.body });
    if (!res.noRetry && run.attempt + 1 < maxAttempts && !cancelled) {
      run.attempt++;
      this.at(this.now + BACKOFF_MS[Math.min(run.attempt - 1, BACKOFF_MS.length - 1)]!, () => this.step(run));
    } else if (!cancelled) Object.assign(run, { status: "failed", endedAt: this.now });
  }
}
