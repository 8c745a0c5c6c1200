// A parse-pool thread (piscina): parses and sanitises one message off the server's event loop.
// Errors travel as plain data: class identity (AppError) does not survive a thread boundary.
import { AppError } from "../../../platform/errors";
import { parseMessage, type ParseOptions, type ParsedMessage } from "./parse-message";

/** A message to parse, or `warmUp`: start the thread (load its modules) and answer at once. */
export type ParseTask = { raw: Uint8Array; opts: ParseOptions } | { warmUp: true };
export type ParseOutcome =
  | { ok: true; message: ParsedMessage }
  | { ok: false; error: { code: AppError["code"]; message: string; extra: AppError["extra"] } | { message: string } }
  | { ready: true };

export default async function parseTask(task: ParseTask): Promise<ParseOutcome> {
  if ("warmUp" in task) return { ready: true };
  const { raw, opts } = task;
  try {
    return { ok: true, message: await parseMessage(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), opts) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: { code: err.code, message: err.message, extra: err.extra } };
    return { ok: false, error: { message: err instanceof Error ? err.message : String(err) } };
  }
}
