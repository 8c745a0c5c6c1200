import { and, asc, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { queryable } from "../../../db/transaction";
import { attachments, messages, threads, type MessageRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { page, type Pagination } from "../../platform/api/pagination";
import { getInbox } from "./inboxes";
import { serializeMessage } from "./serialize";
import { sourceStream } from "./message-source";
import type { listMessagesQuery } from "./schemas";
import { claimable } from "../claims";
import { recordReads } from "../taint";

const attachmentColumns = {
  id: attachments.id,
  messageId: attachments.messageId,
  filename: attachments.filename,
  contentType: attachments.contentType,
  contentId: attachments.contentId,
  size: attachments.size,
  sha256: attachments.sha256,
};

/**
 * Messages serialized with their attachments' metadata (one query for all), as handed to the
 * actor: a key reading untrusted mail is tainted by it (lib/domains/taint/agent-taint.ts).
 */
async function withAttachments(actor: Actor, rows: MessageRow[]) {
  if (!rows.length) return [];
  await recordReads(actor, rows);
  const q = await queryable();
  const atts = await q.select(attachmentColumns).from(attachments).where(inArray(attachments.messageId, rows.map((r) => r.id)));
  return rows.map((m) => serializeMessage(m, atts.filter((a) => a.messageId === m.id)));
}

export async function listMessages(actor: Actor, inboxId: string, f: z.output<typeof listMessagesQuery>) {
  await getInbox(actor, inboxId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(messages.inboxId, inboxId)];
  if (f.q) where.push(sql`${messages.search} @@ websearch_to_tsquery('simple', ${f.q})`);
  if (f.from) where.push(sql`${messages.from}->>'email' = ${f.from}`);
  if (f.thread_id) where.push(eq(messages.threadId, f.thread_id));
  if (f.direction) where.push(eq(messages.direction, f.direction));
  if (f.automated) where.push(eq(messages.automated, f.automated === "true"));
  if (f.claimable) where.push(and(eq(messages.direction, "inbound"), claimable));
  if (f.starting_after) where.push(lt(messages.id, f.starting_after));
  const rows = await q.select().from(messages).where(and(...where)).orderBy(desc(messages.id)).limit(f.limit + 1);
  const { items, hasMore } = page(rows, f.limit);
  return { items: await withAttachments(actor, items), hasMore };
}

/** A message the actor may read: its inbox must be visible to the actor (agent-bound keys: own inboxes). */
export async function findMessage(actor: Actor, id: string): Promise<MessageRow> {
  const q = await queryable();
  const [row] = await q.select().from(messages).where(and(eq(messages.id, id), eq(messages.workspaceId, actor.workspaceId)));
  if (!row) throw notFound("message", id);
  await getInbox(actor, row.inboxId).catch(() => {
    throw notFound("message", id);
  });
  return row;
}

export async function getMessage(actor: Actor, id: string) {
  return (await withAttachments(actor, [await findMessage(actor, id)]))[0]!;
}

export async function listThreads(actor: Actor, inboxId: string, p: Pagination) {
  await getInbox(actor, inboxId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(threads.inboxId, inboxId)];
  if (p.starting_after) where.push(lt(threads.id, p.starting_after));
  const rows = await q.select().from(threads).where(and(...where)).orderBy(desc(threads.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}

/** A thread with its messages, oldest first. */
export async function getThread(actor: Actor, id: string) {
  const q = await queryable();
  const [thread] = await q.select().from(threads).where(and(eq(threads.id, id), eq(threads.workspaceId, actor.workspaceId)));
  if (!thread) throw notFound("thread", id);
  await getInbox(actor, thread.inboxId).catch(() => {
    throw notFound("thread", id);
  });
  const rows = await q.select().from(messages).where(eq(messages.threadId, id)).orderBy(asc(messages.createdAt), asc(messages.id));
  return { thread, messages: await withAttachments(actor, rows) };
}

export async function getAttachment(actor: Actor, messageId: string, attachmentId: string) {
  await recordReads(actor, [await findMessage(actor, messageId)]);
  const q = await queryable();
  const [row] = await q.select().from(attachments).where(and(eq(attachments.id, attachmentId), eq(attachments.messageId, messageId)));
  if (!row) throw notFound("attachment", attachmentId);
  return row;
}

/** A message's raw source the actor may read, streamed from storage. */
export async function getMessageSource(actor: Actor, messageId: string) {
  const message = await findMessage(actor, messageId);
  await recordReads(actor, [message]);
  return { message, ...(await sourceStream(message.id)) };
}
