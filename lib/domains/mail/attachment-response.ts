import { createHash } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import { MailParser, type AttachmentStream, type MailParserOptions } from "mailparser";
import type { AttachmentRow } from "../../../db/schema";
import { mailparserOptions } from "./inbound/parse-message";
import { sourceStream } from "./message-source";
import { AppError } from "../../platform/errors";

/**
 * The attachment's bytes read back out of the message's stored source as they are decoded:
 * never the whole in memory, and checked against the size and SHA-256 recorded when the
 * message was received (a mismatch ends the download with an error, never other bytes).
 */
export async function attachmentStream(a: Pick<AttachmentRow, "id" | "messageId" | "partIndex" | "size" | "sha256">): Promise<Readable> {
  const { stream: source } = await sourceStream(a.messageId);
  const parser = new MailParser(mailparserOptions() as MailParserOptions);
  const out = new PassThrough();
  const hash = createHash("sha256");
  let index = -1;
  let size = 0;
  let found = false;
  const stop = () => {
    source.unpipe(parser);
    source.destroy();
    parser.destroy();
  };
  parser.on("data", (data: { type: string }) => {
    if (data.type !== "attachment") return;
    const part = data as AttachmentStream;
    if (++index !== a.partIndex) {
      // Another attachment: released unread, the parser drains it.
      part.release?.();
      part.content.resume();
      return;
    }
    found = true;
    // The last chunk is held back until the whole is verified: a mismatch leaves the download short.
    let held: Buffer | null = null;
    part.content.on("data", (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      if (held && !out.write(held)) {
        part.content.pause();
        out.once("drain", () => part.content.resume());
      }
      held = chunk;
    });
    part.content.once("end", () => {
      part.release?.();
      stop();
      const sha256 = hash.digest("hex");
      if (size === a.size && sha256 === a.sha256) out.end(held ?? undefined);
      else out.destroy(new Error(`attachment ${a.id}: the source yields ${size} bytes with sha256 ${sha256}, not the ${a.size} bytes stored as ${a.sha256}`));
    });
  });
  parser.once("end", () => {
    if (!found) out.destroy(new Error(`attachment ${a.id}: part ${a.partIndex} is not in the message's source`));
  });
  parser.once("error", (err) => out.destroy(err));
  source.once("error", (err) => out.destroy(err));
  // The client went away: stop reading the source.
  out.once("close", stop);
  source.pipe(parser);
  return out;
}

/** The stored source does not yield the bytes recorded for it (or is gone): no retry brings them back. */
export class StoredBytesMismatch extends Error {
  override name = "StoredBytesMismatch";
}

type RecordedPart = Pick<AttachmentRow, "id" | "partIndex" | "size" | "sha256">;

/**
 * Several attachments of one message, read out of its stored source in one pass (in the order
 * of `parts`), each checked against the size and SHA-256 recorded when the message was stored,
 * and the whole source against its own SHA-256 (what an approval names as `rfc822_sha256`):
 * exactly the recorded bytes, or StoredBytesMismatch.
 */
export async function attachmentBytes(messageId: string, parts: RecordedPart[]): Promise<Buffer[]> {
  if (!parts.length) return [];
  const source = await sourceStream(messageId).catch((err: unknown) => {
    throw err instanceof AppError && err.code === "not_found" ? new StoredBytesMismatch(`message ${messageId} has no stored source`) : err;
  });
  const whole = createHash("sha256");
  const wanted = new Set(parts.map((p) => p.partIndex));
  const read = new Map<number, Buffer>();
  const parser = new MailParser(mailparserOptions() as MailParserOptions);
  let index = -1;
  await new Promise<void>((resolve, reject) => {
    parser.on("data", (data: { type: string }) => {
      if (data.type !== "attachment") return;
      const part = data as AttachmentStream;
      const at = ++index;
      if (!wanted.has(at)) {
        part.release?.();
        part.content.resume();
        return;
      }
      const chunks: Buffer[] = [];
      part.content.on("data", (chunk: Buffer) => chunks.push(chunk));
      part.content.once("end", () => {
        read.set(at, Buffer.concat(chunks));
        part.release?.();
      });
    });
    parser.once("end", resolve);
    parser.once("error", reject);
    source.stream.once("error", reject);
    source.stream.on("data", (chunk: Buffer) => whole.update(chunk));
    source.stream.pipe(parser);
  });
  const sha256 = whole.digest("hex");
  if (sha256 !== source.sha256) throw new StoredBytesMismatch(`message ${messageId}: its stored source hashes to ${sha256}, not the ${source.sha256} it was stored (and approved) as`);
  return parts.map((p) => {
    const bytes = read.get(p.partIndex);
    const actual = bytes ? createHash("sha256").update(bytes).digest("hex") : null;
    if (!bytes || bytes.length !== p.size || actual !== p.sha256) {
      throw new StoredBytesMismatch(`attachment ${p.id} of message ${messageId}: the source yields ${bytes ? `${bytes.length} bytes with sha256 ${actual}` : "no such part"}, not the ${p.size} bytes recorded as ${p.sha256}`);
    }
    return bytes;
  });
}

/**
 * An attachment as a download, streamed: always `attachment` disposition and nosniff, so a
 * browser never renders sender-controlled HTML or SVG in the app's origin.
 */
export async function attachmentResponse(a: AttachmentRow): Promise<Response> {
  const body = await attachmentStream(a);
  body.once("error", (err) => console.error("[attachment] download failed mid-stream:", err.message));
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, { headers: downloadHeaders(a.filename ?? `${a.id}.bin`, a.contentType, a.size, a.sha256) });
}

/** A draft's file (bytes from attachment_blobs) as a download, with the same headers. */
export function fileResponse(f: { filename: string; contentType: string; size: number; sha256: string; bytes: Buffer }): Response {
  return new Response(new Uint8Array(f.bytes), { headers: downloadHeaders(f.filename, f.contentType, f.size, f.sha256) });
}

function downloadHeaders(name: string, contentType: string, size: number, sha256: string): Record<string, string> {
  const filename = name.replace(/[\r\n"\\]/g, "_");
  return {
    "content-type": /^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType : "application/octet-stream",
    "content-length": String(size),
    "content-disposition": `attachment; filename="${filename.replace(/[^\x20-\x7e]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    etag: `"${sha256}"`,
    "cache-control": "private, max-age=3600",
  };
}

/** A message's raw source as a download, streamed (`message/rfc822`, never rendered). */
export function messageSourceResponse(messageId: string, source: { sha256: string; sizeBytes: number; stream: Readable }): Response {
  return new Response(Readable.toWeb(source.stream) as ReadableStream<Uint8Array>, {
    headers: {
      "content-type": "message/rfc822",
      "content-length": String(source.sizeBytes),
      "content-disposition": `attachment; filename="${messageId}.eml"`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      etag: `"${source.sha256}"`,
      "cache-control": "private, max-age=3600",
    },
  });
}
