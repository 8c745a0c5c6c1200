// A parse-pool thread (piscina): parses and sanitises one message off the server's event loop.
// Errors travel as plain data: class identity (AppError) does not survive a thread boundary.
import { AppError } from "../../../platform/errors";
import { parseMessage, type ParseOptions, type ParsedMessage } from "./parse-message";

export type ParseTask = { raw: Uint8Array; opts: ParseOptions };
export type ParseOutcome = { ok: true; message: ParsedMessage } | { ok: false; error: { code: AppError["code"]; message: string; extra: AppError["extra"] } | { message: string } };

export default async function parseTask({ raw, opts }: ParseTask): Promise<ParseOutcome> {
  try {
    return { ok: true, message: await parseMessage(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), opts) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: { code: err.code, message: err.message, extra: err.extra } };
    return { ok: false, error: { message: err instanceof Error ? err.message : String(err) } };
  }
}
