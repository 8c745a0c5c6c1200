import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { mailLimits, mailRejected } from "./mail-limits";
import { trustedAuthservIds } from "./sender-auth";
import { parseMessage, type ParseOptions, type ParsedMessage } from "./parse-message";
import type { ParseOutcome, ParseTask } from "./parse-worker";

let pool: Piscina<ParseTask, ParseOutcome> | null | undefined;
/** Aborted when the pool's threads cannot start (their modules do not load): every waiting message is answered at once. */
let bootFailed = new AbortController();
/** Messages on a thread now, and those waiting for one (bounded: a full queue refuses, 503). */
let running = 0;
const waiting: (() => void)[] = [];

/** How long a thread may take to start (load its modules) before a message is refused for now (503). */
export const THREAD_START_TIMEOUT_MS = 60_000;

/** How long a sender is asked to wait when every thread is busy and the queue is full. */
export const PARSE_QUEUE_RETRY_AFTER_SECONDS = 5;

/**
 * The worker's file, from the app's root. Production runs what `npm run build` bundled
 * (build/parse-worker.mjs, traced into every server function: a deployment has neither the
 * source nor a TypeScript loader); development and tests run the source through tsx, so an
 * edit is never shadowed by an older bundle. Either falls back to the other where it is missing.
 */
export function parseWorkerFile(root = process.cwd(), production = env().NODE_ENV === "production"): { filename: string; execArgv: string[] } | null {
  const bundle = { filename: path.join(root, "build/parse-worker.mjs"), execArgv: [] };
  const source = { filename: path.join(root, "lib/domains/mail/inbound/parse-worker.ts"), execArgv: ["--import", "tsx"] };
  return (production ? [bundle, source] : [source, bundle]).find((w) => fs.existsSync(w.filename)) ?? null;
}

/** The worker pool, started on first use; null when MAIL_PARSE_WORKERS=0 or when the worker is not deployed. */
function parsePool(): Piscina<ParseTask, ParseOutcome> | null {
  if (pool !== undefined) return pool;
  const threads = env().MAIL_PARSE_WORKERS;
  const worker = threads === 0 ? null : parseWorkerFile();
  if (!worker) {
    if (threads > 0) console.error(`[mail] parse worker not deployed (neither lib/domains/mail/inbound/parse-worker.ts nor build/parse-worker.mjs under ${process.cwd()}): parsing on the request's thread, without MAIL_PARSE_TIMEOUT_MS`);
    return (pool = null);
  }
  pool = new Piscina<ParseTask, ParseOutcome>({
    ...worker,
    minThreads: 0,
    maxThreads: threadCount(threads),
    idleTimeout: 30_000,
  });
  // A thread that fails while it boots takes no task, and piscina starts no other: without this,
  // every message would wait out its deadline and be refused for good as parse_timeout.
  const failed = (bootFailed = new AbortController());
  pool.on("error", (err: Error) => {
    console.error(`[mail] the parse worker (${worker.filename}) could not start: ${err.message}`);
    failed.abort(err);
  });
  return pool;
}

const threadCount = (configured: number) => Math.max(1, Math.min(configured, os.availableParallelism()));

/**
 * Waits for a free thread, so a message's MAIL_PARSE_TIMEOUT_MS counts its parsing, not its
 * wait (piscina queues a task with a deadline outside its own bounded queue, and the deadline
 * would run while it waits). At most 16 messages a thread wait; beyond, the sender is asked to
 * come back (503, Retry-After), and the pool stays as it is.
 */
async function takeThread(): Promise<void> {
  const threads = threadCount(env().MAIL_PARSE_WORKERS);
  if (running < threads) {
    running++;
    return;
  }
  if (waiting.length >= threads * 16) throw queueFull();
  await new Promise<void>((resolve) => waiting.push(resolve));
}

/** Hands the thread to the next waiting message, if any. */
function releaseThread(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

const queueFull = () =>
  new AppError(
    "service_unavailable",
    `Too many messages are being parsed right now; nothing was stored. Try again in ${PARSE_QUEUE_RETRY_AFTER_SECONDS} seconds.`,
    { reason: "parse_queue_full" },
    { "retry-after": String(PARSE_QUEUE_RETRY_AFTER_SECONDS) },
  );

/** piscina's refusal when every thread is busy and `maxQueue` tasks wait: load, not a broken worker. */
const isQueueFull = (err: unknown) => err instanceof Error && /queue is at limit/i.test(err.message);

/**
 * parseMessage on a worker thread with a deadline: a message that takes longer than
 * MAIL_PARSE_TIMEOUT_MS is refused (`parse_timeout`, permanent), its thread ended; the event
 * loop serving every other request is never the one doing the work. When every thread is busy
 * and the queue is full, when the threads cannot start, or when one dies on the message, it is
 * refused for now (503, Retry-After: the sender retries); the pool is never switched off.
 */
export async function parseMessageOffThread(raw: Buffer, opts: ParseOptions = {}): Promise<ParsedMessage> {
  const p = parsePool();
  const full: ParseOptions = { ...opts, limits: opts.limits ?? mailLimits(), trustedAuthservIds: opts.trustedAuthservIds ?? trustedAuthservIds() };
  if (!p) return parseMessage(raw, full);
  const timeoutMs = env().MAIL_PARSE_TIMEOUT_MS;
  let outcome: ParseOutcome;
  const failed = bootFailed.signal;
  await takeThread();
  // One signal for the deadline and the pool's boot failure (a timer of our own: AbortSignal.any
  // holds its sources weakly, and a collected timeout signal would never fire).
  let stop = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let starting = false;
  const onBootFailure = () => stop.abort();
  failed.addEventListener("abort", onBootFailure, { once: true });
  try {
    // A message whose thread must start first waits for it outside its deadline: a cold thread
    // loads its modules (seconds on a busy machine or a cold serverless function), and that is
    // not the message's parsing. The start has its own, longer bound.
    if (p.threads.length < running) {
      starting = true;
      timer = setTimeout(() => stop.abort(), THREAD_START_TIMEOUT_MS);
      await p.run({ warmUp: true }, { signal: stop.signal });
      clearTimeout(timer);
      starting = false;
      stop = new AbortController();
      if (failed.aborted) stop.abort();
    }
    timer = setTimeout(() => stop.abort(), timeoutMs);
    outcome = await p.run({ raw: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), opts: full }, { signal: stop.signal });
  } catch (err) {
    if (failed.aborted) {
      // Our fault, not the message's: refused for now (the sender retries), and a new pool is tried next time.
      if (pool === p) {
        pool = undefined;
        void p.destroy();
      }
      throw new AppError("service_unavailable", "The mail parser could not start; nothing was stored. Try again shortly.", { reason: "parser_unavailable" }, { "retry-after": "30" });
    }
    if (starting) {
      throw new AppError("service_unavailable", `The mail parser did not start within ${THREAD_START_TIMEOUT_MS / 1000} s; nothing was stored. Try again shortly.`, { reason: "parser_unavailable" }, { "retry-after": "30" });
    }
    if ((err as Error).name === "AbortError" || (err as Error).name === "TimeoutError") {
      throw mailRejected("parse_timeout", `The message took longer than ${timeoutMs} ms to parse (MAIL_PARSE_TIMEOUT_MS).`, timeoutMs);
    }
    if (isQueueFull(err)) throw queueFull();
    // A thread that died on this message (piscina starts another): refused for now, never parsed
    // here instead, where no deadline guards the server's event loop.
    console.error("[mail] a parse worker failed on a message:", err);
    throw new AppError("service_unavailable", "The mail parser failed on this message; nothing was stored. Try again later.", { reason: "parser_failed" }, { "retry-after": "30" });
  } finally {
    clearTimeout(timer);
    failed.removeEventListener("abort", onBootFailure);
    releaseThread();
  }
  if ("ready" in outcome) throw new Error("mail parse worker: answered a message as a warm-up");
  if (!outcome.ok) {
    const e = outcome.error;
    if ("code" in e) throw new AppError(e.code, e.message, e.extra);
    throw new Error(`mail parse worker: ${e.message}`);
  }
  return outcome.message;
}

/** Ends the pool's threads (tests, shutdown). */
export async function closeParsePool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
