import { createHash } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { queryable } from "../../../db/transaction";
import { attachmentBlobs, attachments, type DraftRow } from "../../../db/schema";
import { attachmentBytes } from "./attachment-response";
import { filesFromBlobs, type BlobRef, type PreparedAttachment } from "./outbound/attachments";

/**
 * Each file stored once (issue #31). A draft's files are in attachment_blobs while a draft that
 * is not sent lists them; sending puts them in the message's source, so the send drops the
 * blobs no other unsent draft lists, and a sent draft's files are read back out of its message.
 * A person's edit that reopens a draft held for approval stores them again (its message is
 * discarded). Races: storeBlobs locks an existing blob until its draft commits (hash order);
 * a send locks the blobs before it marks its draft sent, then checks the drafts in a later
 * statement, which sees every draft committed meanwhile, so no unsent draft loses a file.
 */

/** Locks the workspace's blobs of `shas` (hash order, as storeBlobs takes them): those that exist. */
export async function lockBlobs(tx: Transaction, workspaceId: string, shas: string[]): Promise<string[]> {
  const wanted = [...new Set(shas)].sort();
  if (!wanted.length) return [];
  const rows = await tx
    .select({ sha256: attachmentBlobs.sha256 })
    .from(attachmentBlobs)
    .where(and(eq(attachmentBlobs.workspaceId, workspaceId), inArray(attachmentBlobs.sha256, wanted)))
    .orderBy(attachmentBlobs.sha256)
    .for("update");
  return rows.map((r) => r.sha256);
}

/** Of blobs this transaction locked (lockBlobs), deletes those no draft that is not sent lists. */
export async function dropUnlistedBlobs(tx: Transaction, workspaceId: string, locked: string[]): Promise<void> {
  if (!locked.length) return;
  const listed = await tx.execute<{ sha256: string }>(sql`
    select distinct f->>'sha256' as sha256
      from drafts d cross join lateral jsonb_array_elements(d.attachments) f
     where d.workspace_id = ${workspaceId} and d.status <> 'sent'
       and f->>'sha256' in (${sql.join(locked.map((s) => sql`${s}`), sql`, `)})`);
  const keep = new Set(listed.rows.map((r) => r.sha256));
  const drop = locked.filter((s) => !keep.has(s));
  if (drop.length) await tx.delete(attachmentBlobs).where(and(eq(attachmentBlobs.workspaceId, workspaceId), inArray(attachmentBlobs.sha256, drop)));
}

/**
 * A draft's files, in order, checked against their SHA-256: from attachment_blobs, or, once the
 * draft is sent and no unsent draft keeps them there, out of its message's source.
 */
export async function draftFiles(row: DraftRow, refs: BlobRef[] = row.attachments): Promise<PreparedAttachment[]> {
  if (!refs.length) return [];
  if (row.status !== "sent" || !row.sentMessageId) return filesFromBlobs(row.workspaceId, refs);
  const q = await queryable();
  // One read of the blobs that are still there (bytes and all), then the rest out of the message.
  const blobs = await q.select().from(attachmentBlobs).where(and(eq(attachmentBlobs.workspaceId, row.workspaceId), inArray(attachmentBlobs.sha256, [...new Set(refs.map((r) => r.sha256))])));
  const found = new Map(blobs.map((b) => [b.sha256, b.bytes]));
  const missing = [...new Set(refs.map((r) => r.sha256).filter((s) => !found.has(s)))];
  if (missing.length) {
    // One row per hash (a forward's message may hold a file twice): one pass over its source.
    const rows = await q.select().from(attachments).where(and(eq(attachments.messageId, row.sentMessageId), inArray(attachments.sha256, missing))).orderBy(attachments.partIndex);
    const parts = [...new Map(rows.map((a) => [a.sha256, a])).values()];
    const bytes = await attachmentBytes(row.sentMessageId, parts);
    parts.forEach((p, i) => found.set(p.sha256, bytes[i]!));
  }
  return refs.map((r) => {
    const b = found.get(r.sha256);
    if (!b || b.length !== r.size || createHash("sha256").update(b).digest("hex") !== r.sha256) {
      throw new Error(`attachment ${r.filename} of draft ${row.id}: the bytes for sha256 ${r.sha256} are not in attachment_blobs or message ${row.sentMessageId}, or not the ones stored`);
    }
    return { filename: r.filename, contentType: r.content_type, declaredType: null, size: r.size, sha256: r.sha256, bytes: b };
  });
}
