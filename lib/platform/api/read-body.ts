import { AppError } from "../errors";

/** Stateless between calls (no `stream` option), so one serves every request. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the request body as text, refusing more than `limit` bytes with 413 — by the
 * Content-Length header when sent, and while streaming otherwise (chunked bodies).
 */
export async function readBody(req: Request, limit: number): Promise<string> {
  const tooLarge = () => new AppError("payload_too_large", `The request body is larger than the ${limit}-byte limit.`, { limit_bytes: limit });
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading without destroying the connection: the server discards the rest, and
      // the client still receives the 413.
      reader.releaseLock();
      throw tooLarge();
    }
    chunks.push(value);
  }
  try {
    return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  } catch {
    throw new AppError("invalid_request", "The request body is not valid UTF-8.");
  }
}

/** Parses a JSON body. Empty bodies are `{}` so POSTs without fields need none. */
export function parseJsonBody(text: string, contentType: string | null): unknown {
  if (text.trim() === "") return {};
  if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new AppError("unsupported_media_type", `Send JSON with Content-Type: application/json (got ${contentType}).`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError("malformed_json", `The request body is not valid JSON: ${(err as Error).message}.`);
  }
}
