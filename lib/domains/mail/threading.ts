import { and, desc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { messages, threads, type InboxRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import type { ParsedMessage } from "./inbound/parse-message";
import { participantsKey, subjectKey } from "./inbound/thread-keys";

const SUBJECT_FALLBACK_DAYS = 30;

/**
 * The thread a message joins in its inbox: the thread of any message it names in In-Reply-To
 * or References; only when it names none, a recent thread with the same normalised subject and
 * participants; else a new thread. Counts the message in. Call under the inbox's ingestion lock.
 */
export async function resolveThread(
  tx: Transaction,
  inbox: InboxRow,
  m: Pick<ParsedMessage, "inReplyTo" | "references" | "subject" | "from" | "to" | "cc">,
  at: Date,
  /** The thread it joins whatever it names (a forward joins its original's, in the sending inbox). */
  joins?: string,
): Promise<string> {
  const refs = [...(m.inReplyTo ? [m.inReplyTo] : []), ...m.references];
  const subject = subjectKey(m.subject);
  const people = participantsKey([m.from.email, ...m.to.map((a) => a.email), ...m.cc.map((a) => a.email)], inbox.address);
  let threadId: string | undefined;
  if (joins) {
    const [own] = await tx.select({ id: threads.id }).from(threads).where(and(eq(threads.id, joins), eq(threads.inboxId, inbox.id)));
    threadId = own?.id;
  }
  if (threadId === undefined && refs.length) {
    const [parent] = await tx
      .select({ threadId: messages.threadId })
      .from(messages)
      .where(and(eq(messages.inboxId, inbox.id), inArray(messages.messageId, refs)))
      .orderBy(desc(messages.createdAt))
      .limit(1);
    threadId = parent?.threadId;
  } else if (threadId === undefined && subject) {
    const [match] = await tx
      .select({ id: threads.id })
      .from(threads)
      .where(
        and(
          eq(threads.inboxId, inbox.id),
          eq(threads.subjectKey, subject),
          eq(threads.participantsKey, people),
          gt(threads.lastMessageAt, sql`now() - make_interval(days => ${SUBJECT_FALLBACK_DAYS})`),
        ),
      )
      .orderBy(desc(threads.lastMessageAt))
      .limit(1);
    threadId = match?.id;
  }
  if (threadId) {
    await tx.update(threads).set({ messageCount: sql`${threads.messageCount} + 1`, lastMessageAt: at }).where(eq(threads.id, threadId));
    return threadId;
  }
  const [created] = await tx
    .insert(threads)
    .values({ id: newId("thread"), workspaceId: inbox.workspaceId, inboxId: inbox.id, subject: m.subject, subjectKey: subject, participantsKey: people, messageCount: 1, lastMessageAt: at })
    .returning({ id: threads.id });
  return created!.id;
}

/** Locks an inbox for ingestion or sending: duplicates and thread creation cannot race. */
export async function lockInbox(tx: Transaction, inboxId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`inbox:${inboxId}`}))`);
}
