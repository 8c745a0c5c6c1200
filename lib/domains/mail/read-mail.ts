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
import type { listMessagesQuery, listThreadsQuery } from "./schemas";
import { changeLabels, labelsOfMessages, labelsOfThreads, markRead, messageLabelFilter, threadLabelFilter, type LabelChange } from "./labels";
import { claimable } from "../claims";
import { readMessageColumns, recordReads } from "../taint";

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
  const labels = await labelsOfMessages(rows.map((r) => r.id));
  return rows.map((m) => serializeMessage(m, atts.filter((a) => a.messageId === m.id), labels.get(m.id)));
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
  if (f.label) where.push(messageLabelFilter(f.label));
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

/**
 * One message, opened: when the reader is the inbox's own agent, received mail stops being
 * `unread` (lists do not mark anything read; a workspace key or a person reading changes nothing).
 */
export async function getMessage(actor: Actor, id: string) {
  const row = await findMessage(actor, id);
  await openedBy(actor, row.inboxId, [row]);
  return (await withAttachments(actor, [row]))[0]!;
}

async function openedBy(actor: Actor, inboxId: string, rows: MessageRow[]) {
  if (actor.type !== "key" || !actor.agentId || !rows.some((r) => r.unread)) return;
  const inbox = await getInbox(actor, inboxId);
  if (inbox.agentId !== actor.agentId) return;
  await markRead(actor, inbox.agentId, rows);
  for (const r of rows) if (r.direction === "inbound") r.unread = false;
}

export async function listThreads(actor: Actor, inboxId: string, p: Pagination & Partial<z.output<typeof listThreadsQuery>>) {
  await getInbox(actor, inboxId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(threads.inboxId, inboxId)];
  if (p.label) where.push(threadLabelFilter(p.label));
  if (p.starting_after) where.push(lt(threads.id, p.starting_after));
  const rows = await q.select().from(threads).where(and(...where)).orderBy(desc(threads.id)).limit(p.limit + 1);
  const { items, hasMore } = page(rows, p.limit);
  if (actor.type === "key") await recordReads(actor, await subjectSources(items.map((t) => t.id)));
  const labels = await labelsOfThreads(items.map((t) => t.id));
  return { items: items.map((t) => ({ thread: t, labels: labels.get(t.id) ?? [] })), hasMore };
}

/**
 * The message each thread's subject came from (its first), as taint judges it: a subject in a list
 * is read as much as a body is (an injection fits in a subject line), so listing threads whose
 * subject came from untrusted mail taints the reader (a key; one query).
 */
async function subjectSources(threadIds: string[]) {
  if (!threadIds.length) return [];
  const q = await queryable();
  return q
    .selectDistinctOn([messages.threadId], readMessageColumns)
    .from(messages)
    .where(inArray(messages.threadId, threadIds))
    .orderBy(messages.threadId, asc(messages.createdAt), asc(messages.id));
}

async function findThread(actor: Actor, id: string) {
  const q = await queryable();
  const [thread] = await q.select().from(threads).where(and(eq(threads.id, id), eq(threads.workspaceId, actor.workspaceId)));
  if (!thread) throw notFound("thread", id);
  await getInbox(actor, thread.inboxId).catch(() => {
    throw notFound("thread", id);
  });
  return thread;
}

/** A thread with its messages, oldest first (opened: see getMessage). */
export async function getThread(actor: Actor, id: string) {
  const q = await queryable();
  const thread = await findThread(actor, id);
  const rows = await q.select().from(messages).where(eq(messages.threadId, id)).orderBy(asc(messages.createdAt), asc(messages.id));
  await openedBy(actor, thread.inboxId, rows);
  const shown = await withAttachments(actor, rows);
  return { thread, labels: (await labelsOfThreads([id])).get(id) ?? [], messages: shown };
}

/** Adds and removes labels on a message the actor may read (an agent-bound key: its own inboxes'; 404 otherwise). */
export async function labelMessage(actor: Actor, id: string, change: LabelChange) {
  await findMessage(actor, id);
  return { object: "labels" as const, id, labels: await changeLabels(actor, { kind: "message", id }, change) };
}

/** Adds and removes labels on a thread the actor may read. */
export async function labelThread(actor: Actor, id: string, change: LabelChange) {
  await findThread(actor, id);
  return { object: "labels" as const, id, labels: await changeLabels(actor, { kind: "thread", id }, change) };
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
