import { createHash } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../../db/client";
import { queryable } from "../../../../db/transaction";
import { attachmentBlobs, attachments, type AttachmentRow } from "../../../../db/schema";
import { AppError, type FieldError } from "../../../platform/errors";
import { TransportError } from "../resend-transport";
import { attachmentBytes, StoredBytesMismatch } from "../attachment-response";

/**
 * Limits on what an agent attaches to one message (send, reply or forward), checked before
 * anything is decoded, stored or sent. Resend takes at most 40 MB per email after base64; 25 MB
 * decoded is about 33.4 MB encoded, which leaves room for the body.
 */
export const ATTACHMENT_LIMITS = {
  /** Files on one message. */
  count: 10,
  /** Bytes of one file, decoded. */
  fileBytes: 10 * 1024 * 1024,
  /** Bytes of all files of one message together, decoded. */
  totalBytes: 25 * 1024 * 1024,
  /** Characters of a file name, after it is cleaned. */
  filenameChars: 255,
} as const;

/** Characters of base64 that can hold `bytes` bytes. */
export const base64Chars = (bytes: number) => 4 * Math.ceil(bytes / 3);

/**
 * What the send, reply and forward routes add to API_MAX_BODY_BYTES for their attachments: the
 * total in base64, plus the JSON around each file.
 */
export const ATTACHMENT_BODY_ALLOWANCE = base64Chars(ATTACHMENT_LIMITS.totalBytes) + ATTACHMENT_LIMITS.count * 1024;

const ALPHABET = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") ALPHABET[c.charCodeAt(0)] = 1;

/** Bytes a valid base64 text decodes to, without decoding it. */
export const decodedLength = (b64: string) => (b64.length / 4) * 3 - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);

/** Standard base64 (RFC 4648 §4), padded, without line breaks: one pass, no regular expression (a 14 MB text would overflow one's stack). */
export function isBase64(b64: string): boolean {
  if (b64.length % 4 !== 0) return false;
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  for (let i = 0; i < b64.length - pad; i++) {
    const c = b64.charCodeAt(i);
    if (c >= 128 || !ALPHABET[c]) return false;
  }
  return true;
}

/**
 * A file name that is safe in a header and on a disk: the last path segment, control and
 * reserved characters (`/ \ : * ? " < > |`) replaced by `_`, trimmed, at most 255 characters
 * (the extension kept). Empty after cleaning: `attachment`.
 */
export function cleanFilename(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? "";
  let clean = last.replace(/[\u0000-\u001f\u007f-\u009f:*?"<>|\u2028\u2029]/g, "_").trim().replace(/^\.+/, "");
  if (!clean) clean = "attachment";
  const max = ATTACHMENT_LIMITS.filenameChars;
  if (clean.length > max) {
    const dot = clean.lastIndexOf(".");
    const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : "";
    clean = clean.slice(0, max - ext.length) + ext;
  }
  return clean;
}

export type SniffResult = { contentType: string; executable: string | null };

const startsWith = (b: Buffer, bytes: number[], at = 0) => bytes.every((v, i) => b[at + i] === v);
const ascii = (b: Buffer, s: string, at = 0) => b.length >= at + s.length && b.toString("latin1", at, at + s.length) === s;

/** Declared text types kept when the bytes are text: a CSV is still a CSV. */
const TEXT_TYPES = new Set(["text/plain", "text/csv", "text/markdown", "text/calendar", "text/tab-separated-values", "application/json"]);

/**
 * The type of a file from its first bytes (magic numbers), never from its name or the caller's
 * word. Executables (Windows PE `MZ`, ELF, Mach-O, scripts starting `#!`) are named in
 * `executable`, and refused by the caller.
 */
export function sniffContentType(b: Buffer, declared?: string | null): SniffResult {
  if (startsWith(b, [0x4d, 0x5a])) return { contentType: "application/vnd.microsoft.portable-executable", executable: "a Windows executable (MZ)" };
  if (startsWith(b, [0x7f, 0x45, 0x4c, 0x46])) return { contentType: "application/x-elf", executable: "an ELF executable" };
  for (const magic of [[0xfe, 0xed, 0xfa, 0xce], [0xfe, 0xed, 0xfa, 0xcf], [0xce, 0xfa, 0xed, 0xfe], [0xcf, 0xfa, 0xed, 0xfe], [0xca, 0xfe, 0xba, 0xbe]]) {
    if (startsWith(b, magic)) return { contentType: "application/x-mach-binary", executable: "a Mach-O executable" };
  }
  if (ascii(b, "#!")) return { contentType: "text/x-script", executable: "a script (#!)" };
  const type = (contentType: string): SniffResult => ({ contentType, executable: null });
  if (ascii(b, "%PDF-")) return type("application/pdf");
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return type("image/png");
  if (startsWith(b, [0xff, 0xd8, 0xff])) return type("image/jpeg");
  if (ascii(b, "GIF87a") || ascii(b, "GIF89a")) return type("image/gif");
  if (ascii(b, "RIFF") && ascii(b, "WEBP", 8)) return type("image/webp");
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06])) {
    // Office Open XML files are zips named by the parts they hold.
    if (b.includes("word/document.xml")) return type("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    if (b.includes("xl/workbook.xml")) return type("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    if (b.includes("ppt/presentation.xml")) return type("application/vnd.openxmlformats-officedocument.presentationml.presentation");
    return type("application/zip");
  }
  if (isText(b)) {
    const d = declared?.split(";")[0]!.trim().toLowerCase();
    return type(d && TEXT_TYPES.has(d) ? d : "text/plain");
  }
  return type("application/octet-stream");
}

/** UTF-8 (a BOM allowed) without NUL and with few control characters other than tab and line breaks. */
function isText(b: Buffer): boolean {
  if (b.length === 0) return true;
  const sample = b.subarray(0, 64 * 1024);
  let controls = 0;
  for (const byte of sample) {
    if (byte === 0) return false;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) controls++;
  }
  if (controls > sample.length / 100) return false;
  try {
    // A cut in the middle of a character at the sample's end is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(sample.length < b.length ? sample.subarray(0, Math.max(0, sample.length - 4)) : sample);
    return true;
  } catch {
    return false;
  }
}

/** A file as the API takes it: `content_base64` already checked for shape and size by the schema. */
export type AttachmentInput = { filename: string; content_base64: string; content_type?: string };

/** A file ready to compose: decoded, hashed, its type sniffed. */
export type PreparedAttachment = {
  filename: string;
  contentType: string;
  /** What the caller said, when it said something else. */
  declaredType: string | null;
  size: number;
  sha256: string;
  bytes: Buffer;
};

/** What the answer says about a file whose declared type was replaced by the sniffed one. */
export type AttachmentNote = { filename: string; declared_content_type: string; content_type: string; note: string };

export const attachmentNotes = (list: PreparedAttachment[]): AttachmentNote[] =>
  list
    .filter((a) => a.declaredType !== null)
    .map((a) => ({ filename: a.filename, declared_content_type: a.declaredType!, content_type: a.contentType, note: `declared ${a.declaredType}, but the bytes are ${a.contentType}: sent as ${a.contentType}` }));

/** Decodes, hashes and sniffs files; refuses executables (422 naming the field) and limits the schema could not see. */
export function prepareAttachments(list: AttachmentInput[], field = "attachments"): PreparedAttachment[] {
  return prepareFiles(list.map((a) => ({ filename: a.filename, declared: a.content_type ?? null, bytes: Buffer.from(a.content_base64, "base64") })), field);
}

/** Files given as bytes (a forward's): the same limits, sniffing and refusals. */
export function prepareFiles(list: { filename: string | null; declared: string | null; bytes: Buffer }[], field: string): PreparedAttachment[] {
  const errors: FieldError[] = [];
  if (list.length > ATTACHMENT_LIMITS.count) errors.push({ field, message: `at most ${ATTACHMENT_LIMITS.count} attachments on one message (${list.length} given)` });
  let total = 0;
  const prepared = list.map((a, i) => {
    total += a.bytes.length;
    if (a.bytes.length === 0) errors.push({ field: `${field}.${i}`, message: "an attachment cannot be empty" });
    if (a.bytes.length > ATTACHMENT_LIMITS.fileBytes) errors.push({ field: `${field}.${i}`, message: `${a.bytes.length} bytes, over the ${ATTACHMENT_LIMITS.fileBytes}-byte limit for one attachment` });
    const sniffed = sniffContentType(a.bytes, a.declared);
    const filename = cleanFilename(a.filename ?? "attachment");
    if (sniffed.executable) errors.push({ field: `${field}.${i}`, message: `“${filename}” is ${sniffed.executable}: executables are not sent` });
    const declared = a.declared?.trim().toLowerCase() ?? null;
    return {
      filename,
      contentType: sniffed.contentType,
      declaredType: declared && declared.split(";")[0]!.trim() !== sniffed.contentType ? declared : null,
      size: a.bytes.length,
      sha256: createHash("sha256").update(a.bytes).digest("hex"),
      bytes: a.bytes,
    };
  });
  if (total > ATTACHMENT_LIMITS.totalBytes) errors.push({ field, message: `${total} bytes in all, over the ${ATTACHMENT_LIMITS.totalBytes}-byte limit for one message's attachments` });
  if (errors.length) throw new AppError("validation_failed", `Some attachments cannot be sent: ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}.`, { errors });
  return prepared;
}

/**
 * Stores a draft's files once per workspace and hash: a file already stored is not written again.
 * (A message's files are in its source.) A file already there is locked until the caller
 * commits (`do update`, which keeps its bytes), in hash order, so dropping unused files
 * (lib/domains/mail/draft-files.ts) waits for the draft that uses it and then sees it.
 */
export async function storeBlobs(tx: Transaction, workspaceId: string, list: PreparedAttachment[]): Promise<void> {
  const unique = [...new Map(list.map((a) => [a.sha256, a])).values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
  for (const a of unique) {
    await tx
      .insert(attachmentBlobs)
      .values({ workspaceId, sha256: a.sha256, size: a.size, contentType: a.contentType, bytes: a.bytes })
      .onConflictDoUpdate({ target: [attachmentBlobs.workspaceId, attachmentBlobs.sha256], set: { size: sql`excluded.size` } });
  }
}

/** A file as the mail provider takes it. */
export type OutgoingFile = { filename: string; content: Buffer; contentType: string };

/**
 * The files of a stored outbound message, in their order in its source, read out of that source
 * (the bytes composed, and approved when the message was held: the only copy kept) and checked
 * against the size and SHA-256 parsed from it when it was stored, the whole source against its
 * own SHA-256: exactly those files leave, or none. A missing or different source is a permanent
 * failure (the message is `failed` and audited; no retry could bring the approved bytes back).
 */
export async function filesForDelivery(messageId: string): Promise<OutgoingFile[]> {
  const q = await queryable();
  const rows = await q.select().from(attachments).where(eq(attachments.messageId, messageId)).orderBy(attachments.partIndex);
  if (!rows.length) return [];
  try {
    const bytes = await attachmentBytes(messageId, rows);
    return rows.map((r: AttachmentRow, i) => ({ filename: r.filename ?? "attachment", content: bytes[i]!, contentType: r.contentType }));
  } catch (err) {
    if (err instanceof StoredBytesMismatch) throw new TransportError(`${err.message}: the stored bytes are not the ones composed`, true);
    throw err;
  }
}

/** A stored file as a draft names it: the bytes are in attachment_blobs under (workspace, sha256). */
export type BlobRef = { filename: string; content_type: string; size: number; sha256: string };

export const blobRef = (a: PreparedAttachment): BlobRef => ({ filename: a.filename, content_type: a.contentType, size: a.size, sha256: a.sha256 });

/** The bytes of stored files, in order, checked against the size and SHA-256 they were stored under. */
export async function filesFromBlobs(workspaceId: string, refs: BlobRef[]): Promise<PreparedAttachment[]> {
  if (!refs.length) return [];
  const q = await queryable();
  const blobs = await q
    .select()
    .from(attachmentBlobs)
    .where(and(eq(attachmentBlobs.workspaceId, workspaceId), inArray(attachmentBlobs.sha256, [...new Set(refs.map((r) => r.sha256))])));
  const byHash = new Map(blobs.map((b) => [b.sha256, b]));
  return refs.map((r) => {
    const blob = byHash.get(r.sha256);
    if (!blob || blob.bytes.length !== r.size || createHash("sha256").update(blob.bytes).digest("hex") !== r.sha256) {
      throw new Error(`attachment ${r.filename}: the stored bytes for sha256 ${r.sha256} are missing or not the ones stored`);
    }
    return { filename: r.filename, contentType: r.content_type, declaredType: null, size: r.size, sha256: r.sha256, bytes: blob.bytes };
  });
}
