import { createHash } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import { MailParser, type AttachmentStream, type MailParserOptions } from "mailparser";
import type { AttachmentRow } from "../../../db/schema";
import { mailparserOptions } from "./inbound/parse-message";
import { sourceStream } from "./message-source";

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
