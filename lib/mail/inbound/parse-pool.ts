import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { AppError } from "../../errors";
import { env } from "../../config/env";
import { mailLimits, mailRejected } from "./mail-limits";
import { trustedAuthservIds } from "./sender-auth";
import { parseMessage, type ParseOptions, type ParsedMessage } from "./parse-message";
import type { ParseOutcome, ParseTask } from "./parse-worker";

let pool: Piscina<ParseTask, ParseOutcome> | null | undefined;

/** The worker pool, started on first use; null when disabled or when the worker source is not deployed (a bundle). */
function parsePool(): Piscina<ParseTask, ParseOutcome> | null {
  if (pool !== undefined) return pool;
  const threads = env().MAIL_PARSE_WORKERS;
  // The source file, from the app's root: a bundler would copy `new URL(..., import.meta.url)`
  // away from the modules it imports. Where the source is not deployed, parse on this thread.
  const filename = path.join(process.cwd(), "lib/mail/inbound/parse-worker.ts");
  if (threads === 0 || !fs.existsSync(filename)) {
    if (threads > 0) console.warn(`[mail] parse workers unavailable (${filename} not found): parsing on the main thread`);
    return (pool = null);
  }
  pool = new Piscina<ParseTask, ParseOutcome>({
    filename,
    // The worker runs the same TypeScript modules, through tsx (a dependency).
    execArgv: ["--import", "tsx"],
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(threads, os.availableParallelism())),
    idleTimeout: 30_000,
    // Queue at most a few messages per thread; beyond that the caller waits, not the event loop.
    maxQueue: threads * 16,
  });
  return pool;
}

/**
 * parseMessage on a worker thread with a deadline: a message that takes longer than
 * MAIL_PARSE_TIMEOUT_MS is refused (`parse_timeout`, permanent), its thread ended; the event
 * loop serving every other request is never the one doing the work.
 */
export async function parseMessageOffThread(raw: Buffer, opts: ParseOptions = {}): Promise<ParsedMessage> {
  const p = parsePool();
  const full: ParseOptions = { ...opts, limits: opts.limits ?? mailLimits(), trustedAuthservIds: opts.trustedAuthservIds ?? trustedAuthservIds() };
  if (!p) return parseMessage(raw, full);
  const timeoutMs = env().MAIL_PARSE_TIMEOUT_MS;
  let outcome: ParseOutcome;
  try {
    outcome = await p.run({ raw: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), opts: full }, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    if ((err as Error).name === "AbortError" || (err as Error).name === "TimeoutError") {
      throw mailRejected("parse_timeout", `The message took longer than ${timeoutMs} ms to parse (MAIL_PARSE_TIMEOUT_MS).`, timeoutMs);
    }
    // The pool itself failed (a thread that cannot load its modules): parse here from now on,
    // rather than refuse mail.
    console.error("[mail] parse worker failed; parsing on the main thread from now on:", err);
    pool = null;
    void p.destroy();
    return parseMessage(raw, full);
  }
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
