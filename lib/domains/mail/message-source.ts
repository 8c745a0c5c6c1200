import { Readable } from "node:stream";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { and, eq } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { queryable } from "../../../db/transaction";
import { messageSourceChunks, messageSources } from "../../../db/schema";
import { notFound } from "../../platform/errors";

/** Bytes per stored chunk: one insert or read of this size takes a few tens of ms on PGlite, not seconds. */
export const SOURCE_CHUNK_BYTES = 256 * 1024;

const gzip = promisify(zlib.gzip);

export type EncodedSource = { sha256: string; sizeBytes: number; encoding: "gzip"; bytes: Buffer };

/** A message's raw bytes compressed for storage, on libuv's thread pool (not the event loop). */
export async function encodeSource(raw: Buffer, sha256: string): Promise<EncodedSource> {
  return { sha256, sizeBytes: raw.length, encoding: "gzip", bytes: await gzip(raw) };
}

/**
 * The event loop's next turn. PGlite runs each statement synchronously and resolves it as a
 * microtask, so a chain of statements would hold the loop (timers, sockets) until its end.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Stores the one copy of a message's source, one statement per chunk with a turn of the event loop between. */
export async function storeSource(tx: Transaction, messageId: string, source: EncodedSource): Promise<void> {
  await tx.insert(messageSources).values({ messageId, sha256: source.sha256, sizeBytes: source.sizeBytes, encoding: source.encoding });
  for (let seq = 0; seq * SOURCE_CHUNK_BYTES < source.bytes.length || seq === 0; seq++) {
    await nextTurn();
    await tx.insert(messageSourceChunks).values({ messageId, seq, bytes: source.bytes.subarray(seq * SOURCE_CHUNK_BYTES, (seq + 1) * SOURCE_CHUNK_BYTES) });
  }
}

/** The stored chunks in order, each read by its own query when the consumer asks for it. */
async function* storedChunks(messageId: string): AsyncGenerator<Buffer> {
  const q = await queryable();
  for (let seq = 0; ; seq++) {
    await nextTurn();
    const [chunk] = await q.select({ bytes: messageSourceChunks.bytes }).from(messageSourceChunks).where(and(eq(messageSourceChunks.messageId, messageId), eq(messageSourceChunks.seq, seq)));
    if (!chunk) return;
    yield chunk.bytes;
  }
}

/** A message's raw bytes as received, streamed from storage (decompressed as read). */
export async function sourceStream(messageId: string): Promise<{ sha256: string; sizeBytes: number; stream: Readable }> {
  const q = await queryable();
  const [source] = await q.select().from(messageSources).where(eq(messageSources.messageId, messageId));
  if (!source) throw notFound("message source", messageId);
  const stored = Readable.from(storedChunks(messageId), { objectMode: false });
  const stream = source.encoding === "gzip" ? stored.pipe(zlib.createGunzip()) : stored;
  if (stream !== stored) stored.once("error", (err) => stream.destroy(err));
  return { sha256: source.sha256, sizeBytes: source.sizeBytes, stream };
}

/** A message's whole raw bytes (for a page that shows them: held mail), read from storage. */
export async function readSource(messageId: string): Promise<Buffer> {
  const { stream } = await sourceStream(messageId);
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}
